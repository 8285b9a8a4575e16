#include "security/password_hash.hpp"

#include <array>
#include <string>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

// Cheap parameters keep the suite fast under ASan; the defaults are covered once each below.
PasswordHashParams fast_scrypt() {
  PasswordHashParams params;
  params.scrypt_log2_n = 10;
  return params;
}

PasswordHashParams fast_pbkdf2() {
  PasswordHashParams params;
  params.scheme = PasswordScheme::Pbkdf2Sha256;
  params.pbkdf2_iterations = 1000;
  return params;
}

constexpr std::array<std::uint8_t, 16> kSalt = {0, 1, 2,  3,  4,  5,  6,  7,
                                                8, 9, 10, 11, 12, 13, 14, 15};

bool verifies(std::string_view password, std::string_view encoded) {
  const auto result = verify_password(password, encoded);
  REQUIRE(result);
  return *result;
}

TEST_CASE("scrypt hash round-trips and rejects a wrong password", "[password]") {
  const auto encoded = hash_password("correct horse", fast_scrypt());
  REQUIRE(encoded);
  CHECK(encoded->rfind("$scrypt$ln=10,r=8,p=1$", 0) == 0);
  CHECK(verifies("correct horse", *encoded));
  CHECK_FALSE(verifies("correct horsf", *encoded));
  CHECK_FALSE(verifies("", *encoded));
}

TEST_CASE("PBKDF2 hash round-trips and rejects a wrong password", "[password]") {
  const auto encoded = hash_password("correct horse", fast_pbkdf2());
  REQUIRE(encoded);
  CHECK(encoded->rfind("$pbkdf2-sha256$1000$", 0) == 0);
  CHECK(verifies("correct horse", *encoded));
  CHECK_FALSE(verifies("Correct horse", *encoded));
}

TEST_CASE("default scrypt parameters are N=2^15 r=8 p=1 and verify", "[password]") {
  const auto encoded = hash_password("pw");
  REQUIRE(encoded);
  CHECK(encoded->rfind("$scrypt$ln=15,r=8,p=1$", 0) == 0);
  CHECK(verifies("pw", *encoded));
}

TEST_CASE("default PBKDF2 uses 600000 iterations", "[password]") {
  const auto encoded = hash_password("pw", PasswordScheme::Pbkdf2Sha256);
  REQUIRE(encoded);
  CHECK(encoded->rfind("$pbkdf2-sha256$600000$", 0) == 0);
}

TEST_CASE("each hash gets a fresh 16-byte salt", "[password]") {
  const auto first = hash_password("same", fast_pbkdf2());
  const auto second = hash_password("same", fast_pbkdf2());
  REQUIRE(first);
  REQUIRE(second);
  CHECK(*first != *second);
  // 16 bytes are 22 unpadded base64 characters.
  const auto salt_start = first->find('$', 1 + first->find('$', 1)) + 1;
  CHECK(first->find('$', salt_start) - salt_start == 22);
}

TEST_CASE("encoded hashes never contain a colon", "[password]") {
  // A salt whose base64 is full of '/' and '+' still yields no ':'.
  const std::array<std::uint8_t, 16> salt = {0xff, 0xff, 0xff, 0xfb, 0xef, 0xbe, 0xff, 0xff,
                                             0xff, 0xfb, 0xef, 0xbe, 0xff, 0xff, 0xff, 0xff};
  for (const auto& params : {fast_scrypt(), fast_pbkdf2()}) {
    const auto encoded = hash_password("p:a:s:s", params, salt);
    REQUIRE(encoded);
    CHECK(encoded->find(':') == std::string::npos);
  }
}

TEST_CASE("PBKDF2-HMAC-SHA256 matches a known answer", "[password]") {
  // Source: Python 3.11 hashlib.pbkdf2_hmac("sha256", b"correct horse", bytes(range(16)), 1000,
  // 32), base64 without padding.
  constexpr std::string_view kExpected =
      "$pbkdf2-sha256$1000$AAECAwQFBgcICQoLDA0ODw$yRTMTwbMbo9G0VfjobWqerzuuxe7BETNTErBbKKumGQ";
  const auto encoded = hash_password("correct horse", fast_pbkdf2(), kSalt);
  REQUIRE(encoded);
  CHECK(*encoded == kExpected);
  CHECK(verifies("correct horse", kExpected));
}

TEST_CASE("scrypt matches a known answer", "[password]") {
  // Source: Python 3.11 hashlib.scrypt(b"correct horse", salt=bytes(range(16)), n=1024, r=8, p=1,
  // dklen=32), base64 without padding.
  constexpr std::string_view kExpected =
      "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$nfkj3u1fRTHCea+fVr03sWV770kp5wLOLoEakziKhqE";
  const auto encoded = hash_password("correct horse", fast_scrypt(), kSalt);
  REQUIRE(encoded);
  CHECK(*encoded == kExpected);
  CHECK(verifies("correct horse", kExpected));
}

void check_rejected(std::string_view encoded, Errc expected) {
  CAPTURE(encoded);
  const auto verified = verify_password("correct horse", encoded);
  REQUIRE_FALSE(verified);
  CHECK(verified.error() == expected);
  CHECK(verified.error() == Condition::LocalError);
  CHECK_FALSE(check_password_hash(encoded));
}

constexpr std::string_view kSaltAndHash =
    "AAECAwQFBgcICQoLDA0ODw$yRTMTwbMbo9G0VfjobWqerzuuxe7BETNTErBbKKumGQ";

TEST_CASE("an empty encoding is malformed", "[password]") {
  check_rejected("", Errc::MalformedPasswordHash);
}

TEST_CASE("an encoding without a leading dollar is malformed", "[password]") {
  check_rejected("pbkdf2-sha256$1000$" + std::string(kSaltAndHash), Errc::MalformedPasswordHash);
}

TEST_CASE("an encoding with too few fields is malformed", "[password]") {
  check_rejected("$pbkdf2-sha256$1000$AAECAwQFBgcICQoLDA0ODw", Errc::MalformedPasswordHash);
}

TEST_CASE("an encoding with too many fields is malformed", "[password]") {
  check_rejected("$pbkdf2-sha256$1000$" + std::string(kSaltAndHash) + "$x",
                 Errc::MalformedPasswordHash);
}

TEST_CASE("an unknown scheme is unsupported", "[password]") {
  check_rejected("$md5$1000$" + std::string(kSaltAndHash), Errc::UnsupportedPasswordScheme);
}

TEST_CASE("a non-numeric iteration count is malformed", "[password]") {
  const std::string_view count = GENERATE(as<std::string_view>{}, "", "abc", "+1000", "-1000",
                                          " 1000", "1000 ", "01000", "1e4", "99999999999999999999");
  check_rejected("$pbkdf2-sha256$" + std::string(count) + "$" + std::string(kSaltAndHash),
                 Errc::MalformedPasswordHash);
}

TEST_CASE("scrypt parameters out of order or missing are malformed", "[password]") {
  const std::string_view params = GENERATE(as<std::string_view>{}, "r=8,ln=10,p=1", "ln=10,r=8",
                                           "ln=10,r=8,p=1,x=2", "ln=,r=8,p=1", "n=1024,r=8,p=1");
  check_rejected("$scrypt$" + std::string(params) + "$" + std::string(kSaltAndHash),
                 Errc::MalformedPasswordHash);
}

TEST_CASE("salt or hash that is not base64 is malformed", "[password]") {
  check_rejected(
      "$pbkdf2-sha256$1000$AAECAwQFBgcI*QoLDA0ODw$yRTMTwbMbo9G0VfjobWqerzuuxe7BETNTErBbK",
      Errc::MalformedPasswordHash);
  check_rejected("$pbkdf2-sha256$1000$AAECAwQFBgcICQoLDA0ODw==$yRTMTwbMbo9G0VfjobWqerzuuxe7BETNTE",
                 Errc::MalformedPasswordHash);
}

TEST_CASE("a salt or hash that is too short is malformed", "[password]") {
  check_rejected("$pbkdf2-sha256$1000$AAEC$yRTMTwbMbo9G0VfjobWqerzuuxe7BETNTErBbKKumGQ",
                 Errc::MalformedPasswordHash);
  check_rejected("$pbkdf2-sha256$1000$AAECAwQFBgcICQoLDA0ODw$yRTM", Errc::MalformedPasswordHash);
}

TEST_CASE("absurd cost parameters are rejected before any work", "[password]") {
  const std::string_view encoded =
      GENERATE(as<std::string_view>{}, "$pbkdf2-sha256$999$", "$pbkdf2-sha256$100000001$",
               "$pbkdf2-sha256$0$", "$scrypt$ln=21,r=8,p=1$", "$scrypt$ln=0,r=8,p=1$",
               "$scrypt$ln=20,r=16,p=1$", "$scrypt$ln=10,r=0,p=1$", "$scrypt$ln=10,r=8,p=0$",
               "$scrypt$ln=10,r=8,p=17$", "$scrypt$ln=10,r=33,p=1$");
  check_rejected(std::string(encoded) + std::string(kSaltAndHash),
                 Errc::PasswordHashParametersOutOfRange);
}

TEST_CASE("hash_password refuses parameters that verify_password would reject", "[password]") {
  PasswordHashParams params = fast_pbkdf2();
  params.pbkdf2_iterations = 10;
  const auto encoded = hash_password("pw", params);
  REQUIRE_FALSE(encoded);
  CHECK(encoded.error() == Errc::PasswordHashParametersOutOfRange);
}

TEST_CASE("a hash written by us passes check_password_hash", "[password]") {
  const auto encoded = hash_password("pw", fast_scrypt());
  REQUIRE(encoded);
  CHECK(check_password_hash(*encoded));
}

}  // namespace
}  // namespace gridftp::security
