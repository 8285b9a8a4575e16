#include "protocol/mode_e/block_header.hpp"

namespace gridftp::protocol::mode_e {
namespace {

constexpr std::size_t kCountAt = 1;
constexpr std::size_t kOffsetAt = 9;

void put_u64(std::span<std::uint8_t, 8> out, std::uint64_t value) {
  for (std::size_t i = 0; i < 8; ++i) {
    out[i] = static_cast<std::uint8_t>(value >> (8 * (7 - i)));
  }
}

std::uint64_t get_u64(std::span<const std::uint8_t, 8> in) {
  std::uint64_t value = 0;
  for (const auto byte : in) value = (value << 8) | byte;
  return value;
}

}  // namespace

std::array<std::uint8_t, kHeaderBytes> encode_header(const BlockHeader& header) {
  std::array<std::uint8_t, kHeaderBytes> bytes{};
  bytes[0] = header.descriptors;
  put_u64(std::span(bytes).subspan<kCountAt, 8>(), header.count);
  put_u64(std::span(bytes).subspan<kOffsetAt, 8>(), header.offset);
  return bytes;
}

BlockHeader decode_header(std::span<const std::uint8_t, kHeaderBytes> bytes) {
  return BlockHeader{
      .descriptors = bytes[0],
      .count = get_u64(bytes.subspan<kCountAt, 8>()),
      .offset = get_u64(bytes.subspan<kOffsetAt, 8>()),
  };
}

}  // namespace gridftp::protocol::mode_e
