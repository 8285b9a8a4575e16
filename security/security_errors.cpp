#include "security/security_errors.hpp"

#include <string>

#include "protocol/core/errors.hpp"

namespace gridftp::security {
namespace {

class SecurityCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.security"; }

  std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::CryptoFailure:
        return "cryptographic operation failed";
      case Errc::MalformedPasswordHash:
        return "malformed password hash";
      case Errc::UnsupportedPasswordScheme:
        return "unsupported password hash scheme";
      case Errc::PasswordHashParametersOutOfRange:
        return "password hash parameters out of range";
      case Errc::NotARegularFile:
        return "not a regular file";
      case Errc::FileTooPermissive:
        return "file is readable or writable by group or others";
      case Errc::FileTooLarge:
        return "file too large";
      case Errc::MalformedPem:
        return "malformed or incomplete PEM data";
      case Errc::EncryptedKey:
        return "private key is encrypted (pass phrases are not supported)";
      case Errc::KeyCertificateMismatch:
        return "private key does not match the certificate";
      case Errc::NoCredentialFound:
        return "no credential found";
      case Errc::NoTrustAnchors:
        return "no trusted CA certificates";
      case Errc::MalformedGridmap:
        return "malformed gridmap file";
      case Errc::CertificateUntrusted:
        return "certificate not issued by a trusted CA";
      case Errc::CertificateExpired:
        return "certificate has expired";
      case Errc::CertificateNotYetValid:
        return "certificate is not yet valid";
      case Errc::CertificateRevoked:
        return "certificate has been revoked";
      case Errc::CertificateInvalid:
        return "certificate verification failed";
      case Errc::ProxyViolation:
        return "proxy certificate chain violates RFC 3820";
      case Errc::MalformedDelegation:
        return "malformed delegation message";
      case Errc::DelegationMismatch:
        return "delegated certificate does not match the request";
      case Errc::PacketForged:
        return "packet failed authentication";
    }
    return "unknown security error";
  }

  // Failures of our own data or environment are local errors, so the client gets no hint about
  // what is wrong with our files. A peer whose certificates or delegation fail did not log in.
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<Errc>(value)) {
      case Errc::CryptoFailure:
      case Errc::MalformedPasswordHash:
      case Errc::UnsupportedPasswordScheme:
      case Errc::PasswordHashParametersOutOfRange:
      case Errc::NotARegularFile:
      case Errc::FileTooPermissive:
      case Errc::FileTooLarge:
      case Errc::MalformedPem:
      case Errc::EncryptedKey:
      case Errc::KeyCertificateMismatch:
      case Errc::NoCredentialFound:
      case Errc::NoTrustAnchors:
      case Errc::MalformedGridmap:
        return Condition::LocalError;
      case Errc::CertificateUntrusted:
      case Errc::CertificateExpired:
      case Errc::CertificateNotYetValid:
      case Errc::CertificateRevoked:
      case Errc::CertificateInvalid:
      case Errc::ProxyViolation:
      case Errc::MalformedDelegation:
      case Errc::DelegationMismatch:
        return Condition::LoginFailed;
      case Errc::PacketForged:
        return Condition::DataConnection;
    }
    return Condition::LocalError;
  }
};

}  // namespace

const std::error_category& security_category() {
  static const SecurityCategory category;
  return category;
}

std::error_code make_error_code(Errc e) { return {static_cast<int>(e), security_category()}; }

}  // namespace gridftp::security
