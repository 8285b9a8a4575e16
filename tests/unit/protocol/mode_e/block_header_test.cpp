#include "protocol/mode_e/block_header.hpp"

#include <array>
#include <cstdint>
#include <limits>

#include <catch2/catch.hpp>

using gridftp::protocol::mode_e::BlockHeader;
using gridftp::protocol::mode_e::decode_header;
using gridftp::protocol::mode_e::encode_header;
using gridftp::protocol::mode_e::kHeaderBytes;
namespace mode_e = gridftp::protocol::mode_e;

TEST_CASE("MODE E descriptor flags have the GFD.20 values", "[mode_e]") {
  CHECK(kHeaderBytes == 17);
  CHECK(mode_e::kDescriptorEor == 0x80);
  CHECK(mode_e::kDescriptorEof == 0x40);
  CHECK(mode_e::kDescriptorErr == 0x20);
  CHECK(mode_e::kDescriptorRestart == 0x10);
  CHECK(mode_e::kDescriptorEod == 0x08);
  CHECK(mode_e::kDescriptorClose == 0x04);
  CHECK(mode_e::kDescriptorKnownBits == 0xFC);
}

TEST_CASE("encode_header writes the observed EOF+EOD header for 4 connections", "[mode_e]") {
  // docs/WIRE.md §2.2: 48 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 04.
  const std::array<std::uint8_t, 17> expected{0x48, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4};
  const BlockHeader header{.descriptors = 0x48, .count = 0, .offset = 4};
  CHECK(encode_header(header) == expected);
  const auto decoded = decode_header(expected);
  CHECK(decoded == header);
  CHECK(decoded.is_eof());
  CHECK(decoded.is_eod());
  CHECK_FALSE(decoded.is_close());
}

TEST_CASE("encode_header is big-endian in both 64-bit fields", "[mode_e]") {
  const BlockHeader header{
      .descriptors = 0x00, .count = 0x0102030405060708ULL, .offset = 0x1112131415161718ULL};
  const std::array<std::uint8_t, 17> expected{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                              0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18};
  CHECK(encode_header(header) == expected);
}

TEST_CASE("encode_header writes an observed 256 KiB data block header", "[mode_e]") {
  // docs/WIRE.md §2.4: "00 262144 @1310720".
  const auto bytes = encode_header({.descriptors = 0, .count = 262144, .offset = 1310720});
  const std::array<std::uint8_t, 17> expected{0, 0, 0, 0, 0, 0,    0x04, 0x00, 0x00,
                                              0, 0, 0, 0, 0, 0x14, 0x00, 0x00};
  CHECK(bytes == expected);
}

TEST_CASE("decode_header inverts encode_header at the field boundaries", "[mode_e]") {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  const auto header = GENERATE_COPY(values<BlockHeader>({
      {0x00, 0, 0},
      {0x00, 1, 1},
      {0xFF, kMax, kMax},
      {0x08, 0, 0},
      {0x04, 0, 0},
      {0x0C, 0, 0},
      {0x40, 0, 1},
      {0x00, kMax - 1, std::uint64_t{1} << 63},
      {0x03, 255, 256},
  }));
  CHECK(decode_header(encode_header(header)) == header);
}

TEST_CASE("BlockHeader predicates read only their own bit", "[mode_e]") {
  const auto descriptors = static_cast<std::uint8_t>(GENERATE(range(0, 256)));
  const BlockHeader header{.descriptors = descriptors};
  CHECK(header.is_eof() == ((descriptors & 0x40) != 0));
  CHECK(header.is_eod() == ((descriptors & 0x08) != 0));
  CHECK(header.is_close() == ((descriptors & 0x04) != 0));
}
