// QUIC varints and big-endian fields of the UDPX codec, with RFC 9000 §A.1's sample values.
#include "protocol/udpx/byte_codec.hpp"

#include <array>
#include <vector>

#include <catch2/catch.hpp>

using namespace gridftp::protocol::udpx;

namespace {
std::uint64_t decode_one(std::vector<std::uint8_t> bytes) {
  ByteReader reader(bytes);
  const auto value = reader.varint();
  REQUIRE(reader.ok());
  REQUIRE(reader.remaining() == 0);
  return value;
}

std::vector<std::uint8_t> encode_one(std::uint64_t value) {
  std::array<std::uint8_t, 8> out{};
  ByteWriter writer(out);
  writer.varint(value);
  const auto size = writer.finish();
  REQUIRE(size);
  return {out.begin(), out.begin() + static_cast<std::ptrdiff_t>(*size)};
}
}  // namespace

TEST_CASE("Varints decode RFC 9000's sample encodings", "[udpx]") {
  REQUIRE(decode_one({0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c}) == 151288809941952652ULL);
  REQUIRE(decode_one({0x9d, 0x7f, 0x3e, 0x7d}) == 494878333);
  REQUIRE(decode_one({0x7b, 0xbd}) == 15293);
  REQUIRE(decode_one({0x25}) == 37);
  REQUIRE(decode_one({0x40, 0x25}) == 37);  // not minimal, still valid
}

TEST_CASE("Varints encode in the shortest form", "[udpx]") {
  REQUIRE(encode_one(151288809941952652ULL) ==
          std::vector<std::uint8_t>{0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c});
  REQUIRE(encode_one(494878333) == std::vector<std::uint8_t>{0x9d, 0x7f, 0x3e, 0x7d});
  REQUIRE(encode_one(15293) == std::vector<std::uint8_t>{0x7b, 0xbd});
  REQUIRE(encode_one(37) == std::vector<std::uint8_t>{0x25});
  REQUIRE(encode_one(63).size() == 1);
  REQUIRE(encode_one(64).size() == 2);
  REQUIRE(encode_one(16383).size() == 2);
  REQUIRE(encode_one(16384).size() == 4);
  REQUIRE(encode_one((1ULL << 30) - 1).size() == 4);
  REQUIRE(encode_one(1ULL << 30).size() == 8);
  REQUIRE(decode_one(encode_one(kVarintMax)) == kVarintMax);
}

TEST_CASE("A value above 2^62-1 is refused, and the failure sticks", "[udpx]") {
  std::array<std::uint8_t, 16> out{};
  ByteWriter writer(out);
  writer.varint(kVarintMax + 1);
  writer.u8(7);
  const auto result = writer.finish();
  REQUIRE_FALSE(result);
  REQUIRE(result.error() == Errc::VarintTooLarge);
  REQUIRE(writer.size() == 0);
}

TEST_CASE("Writing past the buffer fails as BufferTooSmall", "[udpx]") {
  std::array<std::uint8_t, 3> out{};
  ByteWriter writer(out);
  writer.u16(0x0102);
  writer.u16(0x0304);
  REQUIRE(writer.finish().error() == Errc::BufferTooSmall);
}

TEST_CASE("Reads past the end fail without reading garbage", "[udpx]") {
  const std::array<std::uint8_t, 3> in{0x80, 0x00, 0x01};  // a 4-byte varint cut short
  ByteReader reader(in);
  REQUIRE(reader.varint() == 0);
  REQUIRE_FALSE(reader.ok());
  const std::array<std::uint8_t, 9> wide{1, 2, 3, 4, 5, 6, 7, 8, 9};
  ByteReader fields(wide);
  REQUIRE(fields.u64() == 0x0102030405060708ULL);
  REQUIRE(fields.u16() == 0);
  REQUIRE_FALSE(fields.ok());
}
