#include "security/openssl_error.hpp"

#include <array>

#include <openssl/err.h>

#include "protocol/core/errors.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

class OpenSslCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "openssl"; }

  std::string message(int value) const override {
    std::array<char, 256> text{};
    ERR_error_string_n(static_cast<unsigned long>(static_cast<unsigned int>(value)), text.data(),
                       text.size());
    return text.data();
  }

  std::error_condition default_error_condition(int /*value*/) const noexcept override {
    return Condition::LocalError;
  }
};

std::error_code to_error_code(unsigned long packed) {
  if (ERR_SYSTEM_ERROR(packed)) {
    return {ERR_GET_REASON(packed), std::system_category()};
  }
  // OpenSSL 3 packs library and reason into the low 31 bits, so the value fits an int.
  return {static_cast<int>(packed & 0x7fffffffUL), openssl_category()};
}

std::string describe(unsigned long packed, const char* data, int flags) {
  std::array<char, 256> text{};
  ERR_error_string_n(packed, text.data(), text.size());
  std::string entry = text.data();
  if ((flags & ERR_TXT_STRING) != 0 && data != nullptr && *data != '\0') {
    entry += " (";
    entry += data;
    entry += ')';
  }
  return entry;
}

std::error_code drain(std::string* message) {
  std::error_code first;
  const char* data = nullptr;
  int flags = 0;
  for (;;) {
    const unsigned long packed = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags);
    if (packed == 0) {
      break;
    }
    if (!first) {
      first = to_error_code(packed);
    }
    if (message != nullptr) {
      if (!message->empty()) {
        *message += "; ";
      }
      *message += describe(packed, data, flags);
    }
  }
  if (!first) {
    return make_error_code(Errc::CryptoFailure);
  }
  return first;
}

}  // namespace

const std::error_category& openssl_category() {
  static const OpenSslCategory category;
  return category;
}

std::error_code openssl_error() { return drain(nullptr); }

std::error_code openssl_error(std::string& message) {
  message.clear();
  return drain(&message);
}

}  // namespace gridftp::security
