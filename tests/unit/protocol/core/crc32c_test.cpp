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

TEST_CASE("crc32c_combine joins the values of two pieces", "[digest]") {
  using gridftp::protocol::crc32c_combine;
  const std::string_view text = "123456789";
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 10)));
  const auto first = text.substr(0, cut);
  const auto second = text.substr(cut);
  CHECK(crc32c_combine(crc32c_of(first), crc32c_of(second), second.size()) == 0xE3069283U);
}

TEST_CASE("crc32c_combine agrees with one pass for long second pieces", "[digest]") {
  using gridftp::protocol::crc32c_combine;
  const auto size = static_cast<std::size_t>(GENERATE(1, 7, 8, 4096, 1 << 20, (1 << 20) + 3));
  std::vector<std::uint8_t> data(size + 100);
  std::mt19937 random(static_cast<std::uint32_t>(size));
  for (auto& b : data) b = static_cast<std::uint8_t>(random());
  const std::span<const std::uint8_t> all(data);
  CHECK(crc32c_combine(crc32c_of(all.first(100)), crc32c_of(all.subspan(100)), size) ==
        crc32c_of(all));
}

TEST_CASE("crc32c_combine carries a value across lengths past 32 bits", "[digest]") {
  using gridftp::protocol::crc32c_combine;
  // Zero bytes of CRC 0 leave a CRC unchanged only when it is combined with the true value of
  // those zeros: check that combining a run of zeros in two halves equals combining it whole.
  const std::uint64_t half = (std::uint64_t{1} << 33) + 5;
  // CRC-32C of n zero bytes, itself built by combination from the CRC of one zero byte.
  const auto zeros = [](std::uint64_t n) {
    std::uint32_t value = 0;  // empty
    std::uint32_t power_value = crc32c_of(std::vector<std::uint8_t>(1, 0));
    std::uint64_t power_length = 1;
    for (; n != 0; n >>= 1) {
      if ((n & 1U) != 0) value = crc32c_combine(value, power_value, power_length);
      power_value = crc32c_combine(power_value, power_value, power_length);
      power_length *= 2;
    }
    return value;
  };
  CHECK(zeros(4096) == crc32c_of(std::vector<std::uint8_t>(4096, 0)));
  CHECK(crc32c_combine(zeros(half), zeros(half), half) == zeros(2 * half));
  CHECK(crc32c_combine(crc32c_of("abc"), zeros(half), half) ==
        crc32c_combine(crc32c_combine(crc32c_of("abc"), zeros(half - 5), half - 5), zeros(5), 5));
}
