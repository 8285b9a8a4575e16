// Error codes of the security layer (password hashes, secret files, credentials, certificate
// verification, delegation, gridmap). Their category maps each code onto a gridftp::Condition so
// reply_for_error() needs no security cases: our own files fail as LocalError, a peer's
// certificates or delegation messages as LoginFailed.
#pragma once

#include <system_error>

namespace gridftp::security {

enum class Errc {
  CryptoFailure = 1,      // an OpenSSL call failed and left nothing in its error queue
  MalformedPasswordHash,  // an encoded hash string does not parse
  UnsupportedPasswordScheme,
  PasswordHashParametersOutOfRange,  // cost parameters outside what we are willing to compute
  NotARegularFile,                   // a secret file is a directory, device, fifo, ...
  FileTooPermissive,                 // a secret file is readable or writable by group or others
  FileTooLarge,
  // Our own credentials, CA directory and gridmap (LocalError).
  MalformedPem,            // a damaged PEM block, or a file without the certificate or key it needs
  EncryptedKey,            // a private key needs a pass phrase; we never prompt for one
  KeyCertificateMismatch,  // the private key does not belong to the certificate
  NoCredentialFound,       // none of Globus's credential locations holds a credential
  NoTrustAnchors,          // the CA directory holds no <hash>.N certificate
  MalformedGridmap,
  // A peer's certificate chain or delegation messages (LoginFailed).
  CertificateUntrusted,  // the chain does not lead to a CA in our trust store
  CertificateExpired,
  CertificateNotYetValid,
  CertificateRevoked,
  CertificateInvalid,   // any other verification failure (bad signature, not a CA, ...)
  ProxyViolation,       // RFC 3820 rules: proxy naming, path length, a proxy signing a non-proxy
  MalformedDelegation,  // delegation bytes that are not one valid DER request or certificate
  DelegationMismatch,   // the delegated certificate is not for our key or not from the peer
  // A data peer's bytes (DataConnection).
  PacketForged,  // a UDPX packet whose AEAD tag does not verify: forged, damaged or replayed
};

const std::error_category& security_category();
std::error_code make_error_code(Errc e);

}  // namespace gridftp::security

template <>
struct std::is_error_code_enum<gridftp::security::Errc> : std::true_type {};
