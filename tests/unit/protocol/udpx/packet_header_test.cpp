// The UDPX common header and DATA/HELLO fronts, byte for byte (docs/UDPX.md §1.2-§1.4).
#include "protocol/udpx/packet_header.hpp"

#include <array>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/udpx/udpx_errors.hpp"

using namespace gridftp::protocol::udpx;

namespace {
CommonHeader sample_data_header() {
  CommonHeader header;
  header.type = PacketType::Data;
  header.encrypted = false;
  header.retransmission = true;
  header.final_block = true;
  header.transfer_id = 0x0203;
  header.destination_cid = 0xA1B2C3D4;
  header.packet_number = 0x0102030405060708ULL;
  return header;
}
}  // namespace

TEST_CASE("A DATA front encodes to the documented 32 bytes", "[udpx]") {
  std::array<std::uint8_t, 64> out{};
  const DataFields fields{0x1122334455667788ULL, 0xCAFEBABE, 3};
  const auto size = encode_data_front(sample_data_header(), fields, out);
  REQUIRE(size);
  REQUIRE(*size == kFrontBytes);
  const std::vector<std::uint8_t> expected{
      0x12, 0x30, 0x02, 0x03, 0xA1, 0xB2, 0xC3, 0xD4,  // ver 1 type 2; R F; transfer; CID
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // packet number
      0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,  // offset
      0xCA, 0xFE, 0xBA, 0xBE, 0x03, 0x00, 0x00, 0x00,  // tx time, attempt, reserved
  };
  REQUIRE(std::vector<std::uint8_t>(out.begin(), out.begin() + 32) == expected);
  const auto header = decode_common_header(out);
  REQUIRE(header);
  REQUIRE(*header == sample_data_header());
  const auto decoded = decode_data_fields(out);
  REQUIRE(decoded);
  REQUIRE(*decoded == fields);
  REQUIRE(associated_data_bytes(PacketType::Data) == 32);
  REQUIRE(associated_data_bytes(PacketType::Nak) == 16);
}

TEST_CASE("Every flag survives a round trip on the packet type that may carry it", "[udpx]") {
  std::array<std::uint8_t, kCommonHeaderBytes> out{};
  CommonHeader header;
  header.type = PacketType::Data;
  header.key_phase = true;
  header.probe = true;
  header.packet_number = ~0ULL;
  REQUIRE(encode_common_header(header, out));
  REQUIRE(*decode_common_header(out) == header);
  header = {};
  header.type = PacketType::Feedback;
  header.key_phase = true;
  REQUIRE(encode_common_header(header, out));
  REQUIRE(*decode_common_header(out) == header);
}

TEST_CASE("Headers that break the rules are refused with their reason", "[udpx]") {
  std::array<std::uint8_t, kCommonHeaderBytes> out{};
  CommonHeader ack;
  ack.type = PacketType::Ack;
  REQUIRE(encode_common_header(ack, out));
  SECTION("another version") {
    out[0] = 0x23;
    REQUIRE(decode_common_header(out).error() == Errc::BadVersion);
  }
  SECTION("a reserved type") {
    out[0] = 0x1B;
    REQUIRE(decode_common_header(out).error() == Errc::UnknownType);
  }
  SECTION("a reserved bit") {
    out[1] |= 0x01;
    REQUIRE(decode_common_header(out).error() == Errc::ReservedBits);
  }
  SECTION("a DATA-only flag on a control packet") {
    out[1] |= 0x10;
    REQUIRE(decode_common_header(out).error() == Errc::ReservedBits);
  }
  SECTION("a control packet in clear") {
    out[1] &= static_cast<std::uint8_t>(~0x40);
    REQUIRE(decode_common_header(out).error() == Errc::ClearControl);
  }
  SECTION("one byte short") {
    REQUIRE(decode_common_header(std::span(out).first(15)).error() == Errc::Truncated);
  }
}

TEST_CASE("DATA reserved bytes must be zero, and HELLO carries its random in clear", "[udpx]") {
  std::array<std::uint8_t, 32> out{};
  REQUIRE(encode_data_front(sample_data_header(), {}, out));
  out[31] = 1;
  REQUIRE(decode_data_fields(out).error() == Errc::ReservedBits);
  REQUIRE(decode_data_fields(std::span(out).first(30)).error() == Errc::Truncated);

  std::array<std::uint8_t, kRandomBytes> random{};
  for (std::size_t i = 0; i < random.size(); ++i) random[i] = static_cast<std::uint8_t>(i * 7);
  CommonHeader hello;
  hello.type = PacketType::Hello;
  REQUIRE(encode_hello_front(hello, random, out));
  REQUIRE(decode_common_header(out)->type == PacketType::Hello);
  REQUIRE(*decode_hello_random(out) == random);
  REQUIRE(associated_data_bytes(PacketType::HelloAck) == 32);
}
