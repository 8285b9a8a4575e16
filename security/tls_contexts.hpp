// The TLS configurations gridftpd and gridcp use, one function each, so every channel's
// versions, ciphers and verification rules are decided here and nowhere else (docs/WIRE.md §5.8).
#pragma once

#include <string>

#include "protocol/core/result.hpp"
#include "security/credential.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

// Data-channel protection after PROT (RFC 2228): C clear, S integrity ("safe"), P privacy.
enum class DataProtection { Clear, Safe, Private };

enum class TlsRole { Client, Server };

// GSI control channel (and GSI data channels): mutual X.509 with proxies, trust anchors from
// `trust` (shared, reference taken), our certificate chain from `own`.
// The acceptor (server) requires a client certificate; the initiator verifies the server's.
Result<SslCtxPtr> make_gsi_control_context(const Credential& own, X509_STORE* trust, TlsRole role);

// One GSI data connection's context. PROT P: strong AEAD suites only. PROT S and PROT C(+DCAU):
// Globus's list with NULL suites first at security level 0, so a Globus peer that picks
// ECDHE-RSA-NULL-SHA under TLS 1.2 is met. `integrity_only` caps PROT S at TLS 1.2 so that the
// NULL-cipher suite really is chosen when we pick (TLS 1.3 has no integrity-only suite).
Result<SslCtxPtr> make_gsi_data_context(const Credential& own, X509_STORE* trust, TlsRole role,
                                        DataProtection protection, bool integrity_only);

// FTPS (RFC 4217) server side: our certificate only, no client certificate asked for.
Result<SslCtxPtr> make_ftps_server_context(const Credential& own);

// How an FTPS client checks the server (gridcp --ftps-ca, --ftps-insecure).
struct FtpsTrust {
  // A PEM file of trusted certificates, or a directory of them under OpenSSL's hashed names
  // (openssl rehash; the layout of /etc/ssl/certs and X509_CERT_DIR). Empty: the system's
  // anchors, or those SSL_CERT_FILE / SSL_CERT_DIR name (OpenSSL's defaults).
  std::string ca_path;
  // false: the certificate is not checked at all (an explicit choice: anyone in the path can
  // then read and change the session).
  bool verify = true;
};

// FTPS client side (gridcp ftps://): no certificate of ours; unless `trust.verify` is off, the
// server's must chain to `trust`'s anchors, and each connection's engine must also be told the
// host name to expect (TlsEngine::expect_host). Sessions may be resumed (TlsEngine::resume), as
// FTPS data connections resume the control connection's. Errors: an OpenSSL error when
// `trust.ca_path` cannot be loaded (ENOENT for a missing file).
Result<SslCtxPtr> make_ftps_client_context(const FtpsTrust& trust = {});

// Unauthenticated TLS 1.3 for UDPX keys without DCAU (docs/UDPX.md §4.1): ECDHE keeps the
// exported secret from eavesdroppers, but neither side checks the other. The server side shows
// a throwaway self-signed certificate (TLS 1.3 has no anonymous suites), made once per process.
// The context is made once per role and shared.
Result<SslCtxPtr> make_unauthenticated_context(TlsRole role);

// Another owner of `context` (reference count).
SslCtxPtr share_context(SSL_CTX* context);

// A self-signed certificate and key for `common_name`, for the demo's FTPS on first run.
Result<Credential> make_self_signed(const std::string& common_name, int days);

}  // namespace gridftp::security
