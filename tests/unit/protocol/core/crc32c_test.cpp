#include "protocol/core/crc32c.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::protocol::Crc32c;

namespace {

std::uint32_t crc32c_of(std::span<const std::uint8_t> bytes) {
  Crc32c crc;
  crc.update(bytes);
  return crc.value();
}

std::uint32_t crc32c_of(std::string_view text) {
  Crc32c crc;
  crc.update(std::span<const char>(text.data(), text.size()));
  return crc.value();
}

// Bit-at-a-time reference (RFC 3720 §12.1, reflected 0x82F63B78).
std::uint32_t reference_crc32c(std::span<const std::uint8_t> bytes) {
  std::uint32_t crc = 0xFFFFFFFFU;
  for (const auto byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1U) != 0 ? 0x82F63B78U : 0);
  }
  return ~crc;
}

}  // namespace

TEST_CASE("Crc32c matches the check value and RFC 3720 B.4 vectors", "[digest]") {
  CHECK(crc32c_of("") == 0x00000000U);
  CHECK(crc32c_of("123456789") == 0xE3069283U);
  std::vector<std::uint8_t> bytes(32, 0x00);
  CHECK(crc32c_of(bytes) == 0x8A9136AAU);
  std::fill(bytes.begin(), bytes.end(), 0xFF);
  CHECK(crc32c_of(bytes) == 0x62A8AB43U);
  for (std::size_t i = 0; i < 32; ++i) bytes[i] = static_cast<std::uint8_t>(i);
  CHECK(crc32c_of(bytes) == 0x46DD794EU);
  for (std::size_t i = 0; i < 32; ++i) bytes[i] = static_cast<std::uint8_t>(31 - i);
  CHECK(crc32c_of(bytes) == 0x113FDB5CU);
}

TEST_CASE("Crc32c matches the RFC 3720 B.4 iSCSI read command PDU", "[digest]") {
  const std::vector<std::uint8_t> pdu{0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                      0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                      0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  CHECK(crc32c_of(pdu) == 0xD9963A56U);
}

TEST_CASE("Crc32c gives the same value however the input is split", "[digest]") {
  const std::string_view text = "123456789abcdefghijklmnop";  // crosses two 8-byte strides
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 26)));
  Crc32c crc;
  crc.update(std::span<const char>(text.data(), cut));
  crc.update(std::span<const char>(text.data() + cut, text.size() - cut));
  Crc32c whole;
  whole.update(std::span<const char>(text.data(), text.size()));
  CHECK(crc.value() == whole.value());
}

TEST_CASE("Crc32c slicing-by-8 agrees with the bitwise reference", "[digest]") {
  std::mt19937 random(static_cast<std::uint32_t>(GENERATE(1, 2, 3)));
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t size = 0; size < 70; ++size) {
    std::vector<std::uint8_t> data(size);
    for (auto& b : data) b = static_cast<std::uint8_t>(byte(random));
    REQUIRE(crc32c_of(data) == reference_crc32c(data));
  }
  std::vector<std::uint8_t> large(100003);
  for (auto& b : large) b = static_cast<std::uint8_t>(byte(random));
  std::uniform_int_distribution<std::size_t> chunk(0, 5000);
  Crc32c crc;
  std::size_t at = 0;
  while (at < large.size()) {
    const auto take = std::min(chunk(random), large.size() - at);
    crc.update(std::span<const std::uint8_t>(large).subspan(at, take));
    at += take;
  }
  CHECK(crc.value() == reference_crc32c(large));
}
