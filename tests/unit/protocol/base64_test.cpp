#include "protocol/core/base64.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol {
namespace {

std::string as_string(const std::vector<std::uint8_t>& bytes) {
  return {bytes.begin(), bytes.end()};
}

struct Rfc4648Vector {
  std::string_view plain;
  std::string_view padded;
  std::string_view unpadded;
};

// RFC 4648 §10 test vectors.
constexpr Rfc4648Vector kRfcVectors[] = {
    {"", "", ""},
    {"f", "Zg==", "Zg"},
    {"fo", "Zm8=", "Zm8"},
    {"foo", "Zm9v", "Zm9v"},
    {"foob", "Zm9vYg==", "Zm9vYg"},
    {"fooba", "Zm9vYmE=", "Zm9vYmE"},
    {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
};

TEST_CASE("base64 encodes and decodes the RFC 4648 section 10 vectors", "[base64]") {
  for (const auto& vector : kRfcVectors) {
    CAPTURE(vector.plain);
    CHECK(encode_base64(vector.plain) == vector.padded);
    CHECK(encode_base64(vector.plain, Base64Padding::Unpadded) == vector.unpadded);
    const auto padded = decode_base64(vector.padded, Base64Padding::Padded);
    REQUIRE(padded);
    CHECK(as_string(*padded) == vector.plain);
    const auto unpadded = decode_base64(vector.unpadded, Base64Padding::Unpadded);
    REQUIRE(unpadded);
    CHECK(as_string(*unpadded) == vector.plain);
  }
}

TEST_CASE("base64 round-trips every byte value at every length up to 40", "[base64]") {
  const auto length = static_cast<std::size_t>(GENERATE(range(0, 41)));
  std::vector<std::uint8_t> bytes(length);
  for (std::size_t i = 0; i < length; ++i) {
    bytes[i] = static_cast<std::uint8_t>(255 - i * 37);
  }
  for (const auto padding : {Base64Padding::Padded, Base64Padding::Unpadded}) {
    const auto decoded = decode_base64(encode_base64(bytes, padding), padding);
    REQUIRE(decoded);
    CHECK(*decoded == bytes);
  }
}

TEST_CASE("base64 encodes bytes with the high bit set using + and /", "[base64]") {
  const std::vector<std::uint8_t> bytes = {0xfb, 0xff, 0xbf};
  CHECK(encode_base64(bytes) == "+/+/");
}

TEST_CASE("base64 rejects characters outside the standard alphabet", "[base64]") {
  const std::string_view text =
      GENERATE(as<std::string_view>{}, "Zm9v-A==", "Zm9v_A==", "Zm9 v", "Zm9v\n", "Zm9v\xc3\xa9Q=");
  CAPTURE(text);
  const auto decoded = decode_base64(text);
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error() == Errc::BadArgument);
  CHECK(decoded.error() == Condition::BadSyntax);
}

TEST_CASE("base64 rejects an embedded NUL", "[base64]") {
  CHECK_FALSE(decode_base64(std::string_view("Zm\0v", 4)));
}

TEST_CASE("base64 rejects a corrupted character at any position", "[base64]") {
  const std::string valid = "Zm9vYmFy";
  const auto position = static_cast<std::size_t>(GENERATE(range(0, 8)));
  std::string corrupted = valid;
  corrupted[position] = '*';
  CHECK_FALSE(decode_base64(corrupted));
}

TEST_CASE("base64 padded decoding rejects misplaced or missing padding", "[base64]") {
  const std::string_view text =
      GENERATE(as<std::string_view>{}, "Zg",
               "Zg=", "Zg===", "Z===", "====", "Zg==Zg==", "Z=g=", "Zm9vY", "=Zm9");
  CAPTURE(text);
  CHECK_FALSE(decode_base64(text, Base64Padding::Padded));
}

TEST_CASE("base64 unpadded decoding rejects any padding and impossible lengths", "[base64]") {
  const std::string_view text =
      GENERATE(as<std::string_view>{}, "Zg==", "Zm8=", "Z", "Zm9vY", "Zm9vYmFyZ");
  CAPTURE(text);
  CHECK_FALSE(decode_base64(text, Base64Padding::Unpadded));
}

TEST_CASE("base64 rejects non-zero bits after the last byte", "[base64]") {
  // RFC 4648 §3.5: "Zh==" and "Zm9=" carry stray bits; only "Zg==" and "Zm8=" are canonical.
  CHECK_FALSE(decode_base64("Zh=="));
  CHECK_FALSE(decode_base64("Zm9="));
  CHECK_FALSE(decode_base64("Zh", Base64Padding::Unpadded));
}

}  // namespace
}  // namespace gridftp::protocol
