#include "protocol/core/crc32c.hpp"

#include <array>

namespace gridftp::protocol {
namespace {

constexpr std::uint32_t kReflectedPolynomial = 0x82F63B78U;

using Table = std::array<std::array<std::uint32_t, 256>, 8>;

// tables[0] is the classic byte table; tables[k][i] is the CRC of byte i followed by k zero bytes,
// which lets eight input bytes be folded in with eight independent look-ups.
constexpr Table make_tables() {
  Table tables{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    auto crc = i;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ ((crc & 1U) != 0 ? kReflectedPolynomial : 0);
    tables[0][i] = crc;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::size_t i = 0; i < 256; ++i) {
      const auto previous = tables[k - 1][i];
      tables[k][i] = (previous >> 8) ^ tables[0][previous & 0xFFU];
    }
  }
  return tables;
}

constexpr Table kTables = make_tables();

// Polynomials over GF(2) modulo the CRC polynomial, in the reflected bit order: bit 31 is x^0.
constexpr std::uint32_t kXPowerZero = 0x80000000U;

// a * b modulo the polynomial (zlib's multmodp).
constexpr std::uint32_t multiply_modulo(std::uint32_t a, std::uint32_t b) {
  std::uint32_t product = 0;
  for (std::uint32_t bit = kXPowerZero; bit != 0 && a != 0; bit >>= 1) {
    if ((a & bit) != 0) {
      product ^= b;
      a ^= bit;
    }
    b = (b & 1U) != 0 ? (b >> 1) ^ kReflectedPolynomial : b >> 1;
  }
  return product;
}

// powers[k] = x^(2^k) modulo the polynomial, k up to 66: bit i of a 64-bit byte count is
// x^(2^(i + 3)) bits.
using PowerTable = std::array<std::uint32_t, 67>;

constexpr PowerTable make_powers() {
  PowerTable powers{};
  powers[0] = kXPowerZero >> 1;  // x^1
  for (std::size_t k = 1; k < powers.size(); ++k)
    powers[k] = multiply_modulo(powers[k - 1], powers[k - 1]);
  return powers;
}

constexpr PowerTable kPowers = make_powers();

// x^(8 * bytes) modulo the polynomial: what a CRC is multiplied by to carry it past `bytes`
// zero bytes.
std::uint32_t shift_for_bytes(std::uint64_t bytes) {
  std::uint32_t power = kXPowerZero;
  for (std::size_t k = 3; bytes != 0; bytes >>= 1, ++k) {
    if ((bytes & 1U) != 0) power = multiply_modulo(kPowers[k], power);
  }
  return power;
}

// Little-endian load, written out so it is right on any host byte order.
std::uint32_t load_le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

}  // namespace

void Crc32c::update(std::span<const std::uint8_t> bytes) { update(bytes.data(), bytes.size()); }

void Crc32c::update(std::span<const char> bytes) {
  // char and unsigned char may alias; this is the one place the view changes type.
  update(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

void Crc32c::update(const unsigned char* data, std::size_t size) {
  auto crc = state_;
  for (; size >= 8; size -= 8, data += 8) {
    const auto low = crc ^ load_le32(data);
    const auto high = load_le32(data + 4);
    crc = kTables[7][low & 0xFFU] ^ kTables[6][(low >> 8) & 0xFFU] ^
          kTables[5][(low >> 16) & 0xFFU] ^ kTables[4][low >> 24] ^ kTables[3][high & 0xFFU] ^
          kTables[2][(high >> 8) & 0xFFU] ^ kTables[1][(high >> 16) & 0xFFU] ^
          kTables[0][high >> 24];
  }
  for (; size > 0; --size, ++data) crc = (crc >> 8) ^ kTables[0][(crc ^ *data) & 0xFFU];
  state_ = crc;
}

std::uint32_t crc32c_combine(std::uint32_t first, std::uint32_t second,
                             std::uint64_t second_length) {
  // The pre- and post-inversions cancel in the combination, as in zlib's crc32_combine.
  return multiply_modulo(shift_for_bytes(second_length), first) ^ second;
}

}  // namespace gridftp::protocol
