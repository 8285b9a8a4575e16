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
      case Errc::CryptoFailure: return "cryptographic operation failed";
      case Errc::MalformedPasswordHash: return "malformed password hash";
      case Errc::UnsupportedPasswordScheme: return "unsupported password hash scheme";
      case Errc::PasswordHashParametersOutOfRange: return "password hash parameters out of range";
      case Errc::NotARegularFile: return "not a regular file";
      case Errc::FileTooPermissive: return "file is readable or writable by group or others";
      case Errc::FileTooLarge: return "file too large";
    }
    return "unknown security error";
  }

  // All of these are failures of our own data or environment, never of the peer's syntax, so the
  // client sees a local error rather than a hint about what is wrong with our files.
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<Errc>(value)) {
      case Errc::CryptoFailure:
      case Errc::MalformedPasswordHash:
      case Errc::UnsupportedPasswordScheme:
      case Errc::PasswordHashParametersOutOfRange:
      case Errc::NotARegularFile:
      case Errc::FileTooPermissive:
      case Errc::FileTooLarge: return Condition::LocalError;
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
