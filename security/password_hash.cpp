#include "security/password_hash.hpp"

#include <array>
#include <charconv>
#include <vector>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "protocol/core/base64.hpp"
#include "security/openssl_error.hpp"
#include "security/openssl_ptr.hpp"
#include "security/ossl_param.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

using protocol::Base64Padding;
using Bytes = std::vector<std::uint8_t>;

constexpr std::string_view kScryptId = "scrypt";
constexpr std::string_view kPbkdf2Id = "pbkdf2-sha256";
constexpr std::size_t kDerivedKeyBytes = 32;

// Limits on what we will compute for a stored hash: a tampered or mistyped password file must
// not make one login take minutes or gigabytes.
constexpr int kMaxScryptLog2N = 20;
constexpr int kMaxScryptR = 32;
constexpr int kMaxScryptP = 16;
constexpr std::uint64_t kMaxScryptMemoryBytes = std::uint64_t{1} << 30;
constexpr std::uint32_t kMinPbkdf2Iterations = 1'000;
constexpr std::uint32_t kMaxPbkdf2Iterations = 100'000'000;
constexpr std::size_t kMinSaltBytes = 8;
constexpr std::size_t kMaxSaltBytes = 64;
constexpr std::size_t kMinHashBytes = 16;
constexpr std::size_t kMaxHashBytes = 64;

struct ParsedHash {
  PasswordHashParams params;
  Bytes salt;
  Bytes hash;
};

// RFC 7914 §5: scrypt's V array holds 128 * r * N bytes.
std::uint64_t scrypt_memory_bytes(const PasswordHashParams& params) {
  return 128U * static_cast<std::uint64_t>(params.scrypt_r) *
         (std::uint64_t{1} << params.scrypt_log2_n);
}

Result<void> check_params(const PasswordHashParams& params) {
  const auto out_of_range = make_error(Errc::PasswordHashParametersOutOfRange);
  if (params.scheme == PasswordScheme::Pbkdf2Sha256) {
    if (params.pbkdf2_iterations < kMinPbkdf2Iterations ||
        params.pbkdf2_iterations > kMaxPbkdf2Iterations) {
      return out_of_range;
    }
    return {};
  }
  if (params.scrypt_log2_n < 1 || params.scrypt_log2_n > kMaxScryptLog2N || params.scrypt_r < 1 ||
      params.scrypt_r > kMaxScryptR || params.scrypt_p < 1 || params.scrypt_p > kMaxScryptP ||
      scrypt_memory_bytes(params) > kMaxScryptMemoryBytes) {
    return out_of_range;
  }
  return {};
}

// Parses a whole decimal field; from_chars already rejects signs and whitespace.
template <typename Int>
bool parse_decimal(std::string_view text, Int& value) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) {
    return false;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size();
}

bool consume_prefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) {
    return false;
  }
  text.remove_prefix(prefix.size());
  return true;
}

// Splits "ln=15,r=8,p=1", in exactly that order, into params.
bool parse_scrypt_params(std::string_view text, PasswordHashParams& params) {
  const auto first_comma = text.find(',');
  const auto second_comma =
      text.find(',', first_comma == std::string_view::npos ? 0 : first_comma + 1);
  if (first_comma == std::string_view::npos || second_comma == std::string_view::npos) {
    return false;
  }
  std::string_view ln = text.substr(0, first_comma);
  std::string_view r = text.substr(first_comma + 1, second_comma - first_comma - 1);
  std::string_view p = text.substr(second_comma + 1);
  return consume_prefix(ln, "ln=") && parse_decimal(ln, params.scrypt_log2_n) &&
         consume_prefix(r, "r=") && parse_decimal(r, params.scrypt_r) && consume_prefix(p, "p=") &&
         parse_decimal(p, params.scrypt_p);
}

// Splits "$id$params$salt$hash" into its four fields.
bool split_fields(std::string_view encoded, std::array<std::string_view, 4>& fields) {
  if (!consume_prefix(encoded, "$")) {
    return false;
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const auto dollar = encoded.find('$');
    const bool last = i + 1 == fields.size();
    if (last != (dollar == std::string_view::npos)) {
      return false;
    }
    fields[i] = encoded.substr(0, dollar);
    encoded.remove_prefix(last ? encoded.size() : dollar + 1);
  }
  return true;
}

Result<ParsedHash> parse_encoded(std::string_view encoded) {
  const auto malformed = make_error(Errc::MalformedPasswordHash);
  std::array<std::string_view, 4> fields;
  if (!split_fields(encoded, fields)) {
    return malformed;
  }
  ParsedHash parsed;
  if (fields[0] == kScryptId) {
    parsed.params.scheme = PasswordScheme::Scrypt;
    if (!parse_scrypt_params(fields[1], parsed.params)) {
      return malformed;
    }
  } else if (fields[0] == kPbkdf2Id) {
    parsed.params.scheme = PasswordScheme::Pbkdf2Sha256;
    if (!parse_decimal(fields[1], parsed.params.pbkdf2_iterations)) {
      return malformed;
    }
  } else {
    return make_error(Errc::UnsupportedPasswordScheme);
  }
  auto salt = protocol::decode_base64(fields[2], Base64Padding::Unpadded);
  auto hash = protocol::decode_base64(fields[3], Base64Padding::Unpadded);
  if (!salt || !hash || salt->size() < kMinSaltBytes || salt->size() > kMaxSaltBytes ||
      hash->size() < kMinHashBytes || hash->size() > kMaxHashBytes) {
    return malformed;
  }
  parsed.salt = std::move(*salt);
  parsed.hash = std::move(*hash);
  if (auto checked = check_params(parsed.params); !checked) {
    return make_error(checked.error());
  }
  return parsed;
}

Result<Bytes> derive(std::string_view password, const PasswordHashParams& params,
                     std::span<const std::uint8_t> salt, std::size_t out_bytes) {
  const bool scrypt = params.scheme == PasswordScheme::Scrypt;
  const EvpKdfPtr kdf(EVP_KDF_fetch(nullptr, scrypt ? "SCRYPT" : "PBKDF2", nullptr));
  const EvpKdfCtxPtr context(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
  if (!context) {
    return make_error(openssl_error());
  }
  std::uint64_t n = std::uint64_t{1} << params.scrypt_log2_n;
  auto r = static_cast<std::uint32_t>(params.scrypt_r);
  auto p = static_cast<std::uint32_t>(params.scrypt_p);
  // OpenSSL's scrypt refuses to allocate more than maxmem. Set it to what these parameters need
  // (RFC 7914: 128*r*N for V, 128*r*p for B, plus slack) so check_params() alone sets the limit.
  std::uint64_t maxmem =
      scrypt_memory_bytes(params) + std::uint64_t{128} * r * (p + 2U) + (std::uint64_t{1} << 20);
  std::uint64_t iterations = params.pbkdf2_iterations;
  char digest[] = "SHA256";
  std::vector<OSSL_PARAM> kdf_params = {
      octet_param(OSSL_KDF_PARAM_PASSWORD, password.data(), password.size()),
      octet_param(OSSL_KDF_PARAM_SALT, salt.data(), salt.size())};
  if (scrypt) {
    kdf_params.push_back(OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n));
    kdf_params.push_back(OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r));
    kdf_params.push_back(OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p));
    kdf_params.push_back(OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem));
  } else {
    kdf_params.push_back(OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_ITER, &iterations));
    kdf_params.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0));
  }
  kdf_params.push_back(OSSL_PARAM_construct_end());
  Bytes out(out_bytes);
  if (EVP_KDF_derive(context.get(), out.data(), out.size(), kdf_params.data()) != 1) {
    OPENSSL_cleanse(out.data(), out.size());
    return make_error(openssl_error());
  }
  return out;
}

std::string format_encoded(const PasswordHashParams& params, std::span<const std::uint8_t> salt,
                           std::span<const std::uint8_t> hash) {
  std::string encoded = "$";
  if (params.scheme == PasswordScheme::Scrypt) {
    encoded += std::string(kScryptId) + "$ln=" + std::to_string(params.scrypt_log2_n) +
               ",r=" + std::to_string(params.scrypt_r) + ",p=" + std::to_string(params.scrypt_p);
  } else {
    encoded += std::string(kPbkdf2Id) + "$" + std::to_string(params.pbkdf2_iterations);
  }
  encoded += "$" + protocol::encode_base64(salt, Base64Padding::Unpadded);
  encoded += "$" + protocol::encode_base64(hash, Base64Padding::Unpadded);
  return encoded;
}

}  // namespace

Result<std::string> hash_password(std::string_view password, PasswordScheme scheme) {
  PasswordHashParams params;
  params.scheme = scheme;
  return hash_password(password, params);
}

Result<std::string> hash_password(std::string_view password, const PasswordHashParams& params,
                                  std::span<const std::uint8_t> salt) {
  if (auto checked = check_params(params); !checked) {
    return make_error(checked.error());
  }
  if (!salt.empty() && (salt.size() < kMinSaltBytes || salt.size() > kMaxSaltBytes)) {
    return make_error(Errc::PasswordHashParametersOutOfRange);
  }
  std::array<std::uint8_t, kPasswordSaltBytes> random_salt{};
  if (salt.empty()) {
    if (RAND_bytes(random_salt.data(), static_cast<int>(random_salt.size())) != 1) {
      return make_error(openssl_error());
    }
    salt = random_salt;
  }
  auto hash = derive(password, params, salt, kDerivedKeyBytes);
  if (!hash) {
    return make_error(hash.error());
  }
  return format_encoded(params, salt, *hash);
}

Result<bool> verify_password(std::string_view password, std::string_view encoded) {
  auto parsed = parse_encoded(encoded);
  if (!parsed) {
    return make_error(parsed.error());
  }
  auto candidate = derive(password, parsed->params, parsed->salt, parsed->hash.size());
  if (!candidate) {
    return make_error(candidate.error());
  }
  const bool match =
      CRYPTO_memcmp(candidate->data(), parsed->hash.data(), parsed->hash.size()) == 0;
  OPENSSL_cleanse(candidate->data(), candidate->size());
  return match;
}

Result<void> check_password_hash(std::string_view encoded) {
  auto parsed = parse_encoded(encoded);
  if (!parsed) {
    return make_error(parsed.error());
  }
  return {};
}

}  // namespace gridftp::security
