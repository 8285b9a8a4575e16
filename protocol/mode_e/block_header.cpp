#include "protocol/mode_e/block_header.hpp"

#include "protocol/core/big_endian.hpp"

namespace gridftp::protocol::mode_e {
namespace {

constexpr std::size_t kCountAt = 1;
constexpr std::size_t kOffsetAt = 9;

constexpr std::size_t kFieldBytes = 8;

}  // namespace

std::array<std::uint8_t, kHeaderBytes> encode_header(const BlockHeader& header) {
  std::array<std::uint8_t, kHeaderBytes> bytes{};
  bytes[0] = header.descriptors;
  store_big_endian(&bytes[kCountAt], header.count, kFieldBytes);
  store_big_endian(&bytes[kOffsetAt], header.offset, kFieldBytes);
  return bytes;
}

BlockHeader decode_header(std::span<const std::uint8_t, kHeaderBytes> bytes) {
  return BlockHeader{
      .descriptors = bytes[0],
      .count = load_big_endian(&bytes[kCountAt], kFieldBytes),
      .offset = load_big_endian(&bytes[kOffsetAt], kFieldBytes),
  };
}

}  // namespace gridftp::protocol::mode_e
