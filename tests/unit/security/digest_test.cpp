#include "security/digest.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::security::Digest;
using gridftp::security::digest_algorithm_name;
using gridftp::security::DigestAlgorithm;
using gridftp::security::parse_digest_algorithm;

namespace {

std::string hex_of(DigestAlgorithm algorithm, std::string_view text) {
  auto digest = Digest::create(algorithm);
  REQUIRE(digest);
  digest->update({text.data(), text.size()});
  auto hex = digest->hex_final();
  REQUIRE(hex);
  return *hex;
}

}  // namespace

TEST_CASE("parse_digest_algorithm accepts the CKSM names in any case", "[digest]") {
  struct Case {
    std::string_view name;
    DigestAlgorithm algorithm;
  };
  const auto c = GENERATE(values<Case>({
      {"ADLER32", DigestAlgorithm::Adler32},
      {"adler32", DigestAlgorithm::Adler32},
      {"MD5", DigestAlgorithm::Md5},
      {"md5", DigestAlgorithm::Md5},
      {"SHA1", DigestAlgorithm::Sha1},
      {"Sha1", DigestAlgorithm::Sha1},
      {"SHA256", DigestAlgorithm::Sha256},
      {"sha256", DigestAlgorithm::Sha256},
      {"SHA512", DigestAlgorithm::Sha512},
      {"CRC32C", DigestAlgorithm::Crc32c},
      {"crc32c", DigestAlgorithm::Crc32c},
  }));
  const auto parsed = parse_digest_algorithm(c.name);
  REQUIRE(parsed);
  CHECK(*parsed == c.algorithm);
}

TEST_CASE("parse_digest_algorithm rejects other names", "[digest]") {
  // Globus answers each of these with "500 Unknown checksum algorithm requested."
  const std::string name = GENERATE(as<std::string>{}, "", "CRC32", "cksum", "FOO", "SHA-256",
                                    "SHA", "MD5 ", " MD5", "ADLER", "SHA2560");
  const auto parsed = parse_digest_algorithm(name);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error() == gridftp::Condition::BadSyntax);
}

TEST_CASE("digest_algorithm_name gives the canonical name back", "[digest]") {
  const auto algorithm =
      GENERATE(DigestAlgorithm::Adler32, DigestAlgorithm::Md5, DigestAlgorithm::Sha1,
               DigestAlgorithm::Sha256, DigestAlgorithm::Sha512, DigestAlgorithm::Crc32c);
  const auto parsed = parse_digest_algorithm(digest_algorithm_name(algorithm));
  REQUIRE(parsed);
  CHECK(*parsed == algorithm);
}

TEST_CASE("Digest matches the standard test vectors", "[digest]") {
  CHECK(hex_of(DigestAlgorithm::Md5, "") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(hex_of(DigestAlgorithm::Md5, "abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(hex_of(DigestAlgorithm::Sha1, "abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(hex_of(DigestAlgorithm::Sha256, "abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex_of(DigestAlgorithm::Sha256, "") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex_of(DigestAlgorithm::Sha512, "abc") ==
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  CHECK(hex_of(DigestAlgorithm::Crc32c, "123456789") == "e3069283");
  CHECK(hex_of(DigestAlgorithm::Crc32c, "") == "00000000");
}

TEST_CASE("Digest prints what globus-gridftp-server 13.24 replies to CKSM", "[digest]") {
  // `CKSM <alg> 0 -1 <file>` on a file holding "Wikipedia" -> "213 <hex>".
  CHECK(hex_of(DigestAlgorithm::Adler32, "Wikipedia") == "11e60398");
  CHECK(hex_of(DigestAlgorithm::Md5, "Wikipedia") == "9c677286866aad38f8e9b660f5411814");
  CHECK(hex_of(DigestAlgorithm::Sha1, "Wikipedia") == "664add438097fbd4307f814de8e62a10f8905588");
  CHECK(hex_of(DigestAlgorithm::Sha256, "Wikipedia") ==
        "d38b38a2dd476e045c299e8ee5d6466834456d97bd592a71746b423a6a05f386");
  CHECK(hex_of(DigestAlgorithm::Sha512, "Wikipedia") ==
        "d83d8b6e18c38434a113775ac1879a3a738222b1dd0b06bd7b7b6e00b99b69a5"
        "32cd7f06f44621e62047e9ff7107e655bc2927959a3a9ae3fb2bd47e07e863c0");
  // Zero-padded to 8 digits: the empty file, and "123456789".
  CHECK(hex_of(DigestAlgorithm::Adler32, "") == "00000001");
  CHECK(hex_of(DigestAlgorithm::Adler32, "123456789") == "091e01de");
}

TEST_CASE("Digest gives the same value for input fed in pieces", "[digest]") {
  const auto algorithm =
      GENERATE(DigestAlgorithm::Adler32, DigestAlgorithm::Md5, DigestAlgorithm::Sha1,
               DigestAlgorithm::Sha256, DigestAlgorithm::Sha512, DigestAlgorithm::Crc32c);
  const std::string text(1000000, 'a');
  auto digest = Digest::create(algorithm);
  REQUIRE(digest);
  for (std::size_t at = 0; at < text.size(); at += 4099) {
    const auto take = std::min<std::size_t>(4099, text.size() - at);
    digest->update({text.data() + at, take});
  }
  const auto hex = digest->hex_final();
  REQUIRE(hex);
  CHECK(*hex == hex_of(algorithm, text));
  if (algorithm == DigestAlgorithm::Sha256) {
    CHECK(*hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
  if (algorithm == DigestAlgorithm::Adler32) CHECK(*hex == "15d870f9");
}

TEST_CASE("Digest finishes once", "[digest]") {
  const auto algorithm = GENERATE(DigestAlgorithm::Adler32, DigestAlgorithm::Sha256);
  auto digest = Digest::create(algorithm);
  REQUIRE(digest);
  REQUIRE(digest->hex_final());
  const auto again = digest->hex_final();
  REQUIRE_FALSE(again);
  CHECK(again.error() == gridftp::Condition::BadSequence);
}

TEST_CASE("Digest can be moved mid-stream", "[digest]") {
  auto digest = Digest::create(DigestAlgorithm::Sha256);
  REQUIRE(digest);
  digest->update({"ab", 2});
  Digest moved = std::move(*digest);
  moved.update({"c", 1});
  const auto hex = moved.hex_final();
  REQUIRE(hex);
  CHECK(*hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
