// Password hashing for local accounts: scrypt (RFC 7914) and PBKDF2-HMAC-SHA256 (RFC 8018) in a
// modular-crypt-like string with no ':' (the password file is colon-separated). Not for TLS keys.
//   $scrypt$ln=15,r=8,p=1$<salt>$<hash>        $pbkdf2-sha256$600000$<salt>$<hash>
// salt and hash are standard base64 without padding.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::security {

enum class PasswordScheme { Scrypt, Pbkdf2Sha256 };

struct PasswordHashParams {
  PasswordScheme scheme = PasswordScheme::Scrypt;
  // scrypt: N = 2^15, r = 8, p = 1 needs 32 MiB and about 0.1 s (OWASP minimum in 2023).
  int scrypt_log2_n = 15;
  int scrypt_r = 8;
  int scrypt_p = 1;
  // PBKDF2-HMAC-SHA256: OWASP's 2023 recommendation.
  std::uint32_t pbkdf2_iterations = 600'000;
};

inline constexpr std::size_t kPasswordSaltBytes = 16;

// Hashes with a fresh random salt and the default parameters of `scheme`.
// Errors: Errc::CryptoFailure or an openssl_category code if RAND_bytes or the KDF fails.
Result<std::string> hash_password(std::string_view password,
                                  PasswordScheme scheme = PasswordScheme::Scrypt);

// Hashes with explicit parameters; an empty `salt` means 16 fresh random bytes. A given salt is
// for known-answer tests. Errors: as above, plus Errc::PasswordHashParametersOutOfRange when the
// parameters fall outside what verify_password() accepts (so every hash we write verifies).
Result<std::string> hash_password(std::string_view password, const PasswordHashParams& params,
                                  std::span<const std::uint8_t> salt = {});

// True if `password` matches `encoded`; comparison is constant-time (CRYPTO_memcmp).
// Errors: Errc::MalformedPasswordHash, Errc::UnsupportedPasswordScheme,
// Errc::PasswordHashParametersOutOfRange (ln > 20, memory > 1 GiB, iterations outside
// [1000, 10^8], ...), or a KDF failure as for hash_password().
Result<bool> verify_password(std::string_view password, std::string_view encoded);

// Parses `encoded` and checks its parameters without running the KDF, so a password file can be
// validated at load time. Errors: as for verify_password(), except KDF failures.
Result<void> check_password_hash(std::string_view encoded);

}  // namespace gridftp::security
