// Unsigned integers of 1 to 8 bytes in network byte order (most significant byte first), the
// order of every binary field we parse or build: MODE E block headers and batch records
// (docs/WIRE.md) and UDPX packets (docs/UDPX.md). Works on char and std::uint8_t buffers alike; the
// caller has checked that `count` bytes are there.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gridftp::protocol {

// The `count`-byte big-endian integer starting at `bytes` (count <= 8).
template <typename Byte>
constexpr std::uint64_t load_big_endian(const Byte* bytes, std::size_t count) {
  static_assert(sizeof(Byte) == 1);
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < count; ++i)
    value = (value << 8U) | static_cast<std::uint8_t>(bytes[i]);
  return value;
}

// Writes the low `count` bytes of `value` to `bytes`, most significant first (count <= 8).
template <typename Byte>
constexpr void store_big_endian(Byte* bytes, std::uint64_t value, std::size_t count) {
  static_assert(sizeof(Byte) == 1);
  for (std::size_t i = count; i-- > 0;) {
    bytes[i] = static_cast<Byte>(value & 0xFFU);
    value >>= 8U;
  }
}

}  // namespace gridftp::protocol
