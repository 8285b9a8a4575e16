// Network byte order helpers (protocol/core/big_endian.hpp) against hand-written byte vectors.
#include "protocol/core/big_endian.hpp"

#include <array>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

using gridftp::protocol::load_big_endian;
using gridftp::protocol::store_big_endian;

TEST_CASE("Big-endian fields of 1 to 8 bytes read most significant byte first",
          "[protocol][big_endian]") {
  const std::array<std::uint8_t, 8> bytes{0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF};
  CHECK(load_big_endian(bytes.data(), 1) == 0x01U);
  CHECK(load_big_endian(bytes.data(), 2) == 0x0123U);
  CHECK(load_big_endian(bytes.data() + 1, 3) == 0x234567U);
  CHECK(load_big_endian(bytes.data(), 4) == 0x01234567U);
  CHECK(load_big_endian(bytes.data(), 8) == 0x0123456789ABCDEFULL);
  CHECK(load_big_endian(bytes.data(), 0) == 0U);
  // char buffers (batch records live in std::string) read the same, high bytes unsigned.
  const std::string chars("\xFF\xFE\x00\x01", 4);
  CHECK(load_big_endian(chars.data(), 4) == 0xFFFE0001U);
}

TEST_CASE("Big-endian stores write the low bytes, most significant first, and read back",
          "[protocol][big_endian]") {
  std::array<std::uint8_t, 8> out{};
  store_big_endian(out.data(), 0x0123456789ABCDEFULL, 8);
  CHECK(out == std::array<std::uint8_t, 8>{0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF});

  std::array<char, 3> narrow{'x', 'x', 'x'};
  store_big_endian(narrow.data(), 0xAABBCCDDU, 2);  // only the low two bytes
  CHECK(static_cast<std::uint8_t>(narrow[0]) == 0xCC);
  CHECK(static_cast<std::uint8_t>(narrow[1]) == 0xDD);
  CHECK(narrow[2] == 'x');

  for (const std::uint64_t value : {0ULL, 1ULL, 0x80ULL, 0xFFFFULL, 0x1234567ULL, ~0ULL}) {
    std::array<std::uint8_t, 8> field{};
    store_big_endian(field.data(), value, 8);
    CHECK(load_big_endian(field.data(), 8) == value);
  }
}
