#include "security/hkdf.hpp"

#include <array>
#include <vector>

#include <openssl/core_names.h>
#include <openssl/kdf.h>

#include "security/openssl_error.hpp"
#include "security/openssl_ptr.hpp"
#include "security/ossl_param.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

enum class HkdfStep { Extract, Expand };

// One HKDF step. `salt_or_info` is the salt for Extract, the info for Expand; `key` is the IKM
// for Extract, the PRK for Expand.
Result<void> hkdf(const char* digest, HkdfStep step, std::span<const std::uint8_t> key,
                  std::span<const std::uint8_t> salt_or_info, std::span<std::uint8_t> out) {
  const EvpKdfPtr kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  const EvpKdfCtxPtr context(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
  if (!context) return make_error(openssl_error());
  int mode =
      step == HkdfStep::Extract ? EVP_KDF_HKDF_MODE_EXTRACT_ONLY : EVP_KDF_HKDF_MODE_EXPAND_ONLY;
  // A zero-length salt would be ignored by OpenSSL; HKDF's default salt is HashLen zeros.
  static constexpr std::array<std::uint8_t, 64> kZeroSalt{};
  std::vector<OSSL_PARAM> params = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0),
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      octet_param(OSSL_KDF_PARAM_KEY, key.data(), key.size())};
  if (step == HkdfStep::Extract) {
    if (out.size() > kZeroSalt.size()) return make_error(Errc::CryptoFailure);
    const auto salt = salt_or_info.empty()
                          ? std::span<const std::uint8_t>(kZeroSalt).first(out.size())
                          : salt_or_info;
    params.push_back(octet_param(OSSL_KDF_PARAM_SALT, salt.data(), salt.size()));
  } else {
    params.push_back(octet_param(OSSL_KDF_PARAM_INFO, salt_or_info.data(), salt_or_info.size()));
  }
  params.push_back(OSSL_PARAM_construct_end());
  if (EVP_KDF_derive(context.get(), out.data(), out.size(), params.data()) != 1) {
    OPENSSL_cleanse(out.data(), out.size());
    return make_error(openssl_error());
  }
  return {};
}

}  // namespace

Result<void> hkdf_extract(const char* digest, std::span<const std::uint8_t> salt,
                          std::span<const std::uint8_t> ikm, std::span<std::uint8_t> out) {
  return hkdf(digest, HkdfStep::Extract, ikm, salt, out);
}

Result<void> hkdf_expand_label(const char* digest, std::span<const std::uint8_t> secret,
                               std::string_view label, std::span<const std::uint8_t> context,
                               std::span<std::uint8_t> out) {
  // struct { uint16 length; opaque label<7..255>; opaque context<0..255>; } HkdfLabel;
  if (out.size() > 255 || label.size() > 255 || context.size() > 255) {
    return make_error(Errc::CryptoFailure);
  }
  std::vector<std::uint8_t> info;
  info.reserve(4 + label.size() + context.size());
  info.push_back(static_cast<std::uint8_t>(out.size() >> 8U));
  info.push_back(static_cast<std::uint8_t>(out.size() & 0xFFU));
  info.push_back(static_cast<std::uint8_t>(label.size()));
  info.insert(info.end(), label.begin(), label.end());
  info.push_back(static_cast<std::uint8_t>(context.size()));
  info.insert(info.end(), context.begin(), context.end());
  return hkdf(digest, HkdfStep::Expand, secret, info, out);
}

}  // namespace gridftp::security
