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

}  // namespace gridftp::protocol
