// The user's GSI credential as gridcp uses it for gsiftp:// (docs/WIRE.md §5.4): the proxy found
// the Globus way (X509_USER_PROXY, /tmp/x509up_u<uid>, ~/.globus), the trusted CAs of
// X509_CERT_DIR, and the TLS contexts built from them for the control channel and for each
// kind of data connection. Loaded once per run and shared, read-only, by every thread.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "protocol/core/result.hpp"
#include "security/credential.hpp"
#include "security/tls_contexts.hpp"

namespace gridftp::client {

class GsiCredentials {
 public:
  // Loads the credential and trust anchors from the environment. On failure `detail` says what
  // was missing or broken and where gridcp looked ("no GSI credential: X509_USER_PROXY names
  // /x, which does not exist"). Errors: those of security::load_user_credential (NotFound,
  // Errc::NoCredentialFound, ...), security::load_trust_store and the context builders.
  static Result<std::shared_ptr<const GsiCredentials>> load_from_environment(std::string& detail);
  // The same from a credential and trust anchors already in hand (tests, other front ends).
  // Errors: those of the context builders (a key too weak, a key that does not match).
  static Result<std::shared_ptr<const GsiCredentials>> from_credential(
      security::Credential credential, security::X509StorePtr trust, std::string& detail);

  // The credential we present and delegate from, and its Grid identity (the user's DN).
  const security::Credential& credential() const { return credential_; }
  const std::string& identity() const { return identity_; }
  // GSI control channel, TLS client side.
  const security::SslCtxPtr& control_context() const { return control_context_; }
  // A data connection's context: we are the TLS client when we connect (docs/WIRE.md §5.7).
  const security::SslCtxPtr& data_context(security::TlsRole role,
                                          security::DataProtection protection) const;

 private:
  GsiCredentials() = default;

  static constexpr std::size_t kDataContextCount = 6;  // 2 roles x 3 protection levels

  security::Credential credential_;
  std::string identity_;
  security::X509StorePtr trust_;
  security::SslCtxPtr control_context_;
  std::array<security::SslCtxPtr, kDataContextCount> data_contexts_;
};

}  // namespace gridftp::client
