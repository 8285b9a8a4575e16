// What DCAU and PROT demand of a session's next data connections (docs/WIRE.md §5.6, §5.7): the TLS
// contexts built from the delegated credential, the protection level, and whose identity the
// peer must prove. Built once per DCAU/PROT setting and shared by every stream of a transfer.
#pragma once

#include <memory>
#include <string>

#include "protocol/core/result.hpp"
#include "security/credential.hpp"
#include "security/tls_contexts.hpp"
#include "transport/data_link.hpp"

namespace gridftp::server {

struct DataSecurity {
  security::SslCtxPtr connecting;  // we connected: TLS client, GSI initiator
  security::SslCtxPtr accepting;   // we accepted: TLS server, GSI acceptor
  security::DataProtection protection = security::DataProtection::Clear;
  std::string expected_peer;  // DCAU A: our own (the delegated) identity; DCAU S: the subject
  // FTPS (RFC 4217 §7): we are the TLS server whichever side connects, and nobody is identified.
  bool ftps = false;
};

// FTPS PROT P: the server context for both directions. Errors: none in practice (a reference).
std::shared_ptr<const DataSecurity> make_ftps_data_security(
    const security::SslCtxPtr& server_context);

// Errors: OpenSSL's, when the credential cannot be used.
Result<std::shared_ptr<const DataSecurity>> make_data_security(const security::Credential& own,
                                                               const security::X509StorePtr& trust,
                                                               security::DataProtection protection,
                                                               bool integrity_only,
                                                               std::string expected_peer);

// Runs the GSI handshake on a new data connection and checks the peer's identity.
// Errors: the handshake's, or Condition::UnexpectedDataIdentity for another identity.
transport::awaitable<Result<void>> secure_data_link(transport::DataLink& link,
                                                    transport::tcp::socket& socket,
                                                    const DataSecurity& security,
                                                    bool we_connected);

}  // namespace gridftp::server
