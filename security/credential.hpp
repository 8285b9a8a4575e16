// A credential: private key, certificate and the issuers above it (host credential, user proxy,
// delegated proxy), loaded the way Globus finds and stores them. Not a verifier: see trust_store.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <openssl/ssl.h>

#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

// Move-only. Every loader returns a key that matches `cert` and a non-null `chain`.
struct Credential {
  EvpPkeyPtr key;
  X509Ptr cert;
  X509StackPtr chain;  // issuers of `cert`, closest first; may include the CA; may be empty
};

// Another owner of the same key and certificates (reference counts; nothing is copied).
// Errors: an OpenSSL error when the chain cannot be duplicated.
Result<Credential> share_credential(const Credential& credential);

// A host or user credential: `cert_file` holds the certificate and optionally its issuers, in
// order; `key_file` the unencrypted private key, and only its owner may read it.
// Errors: errno values (ENOENT compares equal to NotFound), Errc::NotARegularFile,
// Errc::FileTooPermissive (key file), Errc::FileTooLarge, Errc::MalformedPem (damaged, or no
// certificate / no key), Errc::EncryptedKey, Errc::KeyCertificateMismatch.
Result<Credential> load_credential(const std::filesystem::path& cert_file,
                                   const std::filesystem::path& key_file);

// A proxy file (X509_USER_PROXY, /tmp/x509up_u<uid>) as grid-proxy-init writes it: the proxy
// certificate first, then its key, then the issuer chain. The key may stand anywhere; the first
// certificate is the credential's. Errors: as for load_credential; the file must be private.
Result<Credential> load_proxy_file(const std::filesystem::path& proxy_file);

// The credential as PEM text in a proxy file's order (certificate, key, chain): what a frontend
// hands its movers inside their mutually authenticated TLS (docs/STRIPING.md). The text holds
// the private key: callers wipe it (wipe_secret) once sent. Errors: an OpenSSL error.
Result<std::string> credential_to_pem(const Credential& credential);
// That text back into a credential. Errors: as load_proxy_file's, but for file access.
Result<Credential> credential_from_pem(std::string_view text);

// One place Globus looks for a user credential.
struct CredentialSource {
  std::filesystem::path cert_file;
  std::filesystem::path key_file;  // equal to cert_file for a proxy file
  bool proxy_file = false;
  bool named_explicitly = false;  // from an environment variable: a failure there is final
};

using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;

// Globus's search order for user credentials: X509_USER_PROXY; else /tmp/x509up_u<uid>; else
// X509_USER_CERT / X509_USER_KEY (either one set; the other defaults to ~/.globus); else
// ~/.globus/usercert.pem and userkey.pem. HOME comes from `environment` too; without it the
// ~/.globus places are left out. PKCS#12 (usercred.p12) is not supported.
std::vector<CredentialSource> user_credential_sources(const EnvironmentLookup& environment,
                                                      unsigned int uid);

// Loads the first source that exists; a source named explicitly is loaded (or fails) even when
// missing. Errors: as for load_credential / load_proxy_file; Errc::NoCredentialFound when no
// source exists.
Result<Credential> load_user_credential(std::span<const CredentialSource> sources);

// load_user_credential(user_credential_sources(getenv, getuid())).
Result<Credential> load_user_credential_from_env();

// Makes `credential` what `context` (or `ssl`) presents: certificate, key and chain, so the peer
// receives the whole proxy chain (OpenSSL cannot build a chain through proxies itself).
// Errors: Errc::NoCredentialFound for an empty credential, Errc::KeyCertificateMismatch, or an
// OpenSSL error (e.g. a key too weak for the context's security level).
Result<void> use_in_ssl_ctx(const Credential& credential, SSL_CTX* context);
Result<void> use_in_ssl(const Credential& credential, SSL* ssl);

// The Grid identity of the credential: identity_of(cert, chain), e.g. "/O=Grid/OU=Test/CN=Test
// User" for a proxy of that user.
std::string identity(const Credential& credential);

}  // namespace gridftp::security
