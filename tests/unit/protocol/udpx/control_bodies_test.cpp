// UDPX control bodies (docs/UDPX.md §1.5-§1.9): NAK range coding byte for byte, every body
// through a round trip, and the malformed inputs a hostile peer could send.
#include "protocol/udpx/control_bodies.hpp"

#include <array>
#include <vector>

#include <catch2/catch.hpp>

using namespace gridftp::protocol::udpx;

namespace {
template <typename Encode>
std::vector<std::uint8_t> encoded(Encode encode) {
  std::array<std::uint8_t, 1500> out{};
  const auto size = encode(std::span<std::uint8_t>(out));
  REQUIRE(size);
  return {out.begin(), out.begin() + static_cast<std::ptrdiff_t>(*size)};
}
}  // namespace

TEST_CASE("NAK ranges are coded as start, then gap and count-1 varints", "[udpx]") {
  // Blocks 5 and 8..10 missing: start 5 count-1 0; gap 2 (blocks 6, 7 arrived) count-1 2.
  const std::vector<BlockRange> ranges{{5, 1}, {8, 3}};
  std::array<std::uint8_t, 64> out{};
  const auto written = encode_nak({.complete = true}, ranges, out);
  REQUIRE(written);
  REQUIRE(written->ranges == 2);
  const std::vector<std::uint8_t> expected{0x01, 0x02, 0x05, 0x00, 0x02, 0x02};
  REQUIRE(std::vector<std::uint8_t>(out.begin(), out.begin() + 6) == expected);
  REQUIRE(written->bytes == 6);
  std::vector<BlockRange> decoded;
  const auto header = decode_nak(std::span(out).first(written->bytes), decoded);
  REQUIRE(header);
  REQUIRE(header->complete);
  REQUIRE(decoded == ranges);
}

TEST_CASE("A long loss run costs a few bytes, and a full NAK keeps the lowest ranges", "[udpx]") {
  std::vector<BlockRange> ranges{{0, 100'000}};
  for (std::uint64_t i = 0; i < 1000; ++i) ranges.push_back({100'001 + 2 * i, 1});
  std::array<std::uint8_t, 64> small{};
  const auto written = encode_nak({.complete = true}, ranges, small);
  REQUIRE(written);
  REQUIRE(written->ranges < ranges.size());
  REQUIRE(small[0] == 0x00);  // not complete: some ranges stayed out
  std::vector<BlockRange> decoded;
  REQUIRE(decode_nak(std::span(small).first(written->bytes), decoded));
  REQUIRE(decoded.size() == written->ranges);
  REQUIRE(decoded.front() == BlockRange{0, 100'000});
  REQUIRE(std::equal(decoded.begin(), decoded.end(), ranges.begin()));
}

TEST_CASE("Bad NAK range lists are refused both ways", "[udpx]") {
  std::array<std::uint8_t, 64> out{};
  const std::vector<BlockRange> touching{{5, 2}, {7, 1}};  // no received block in between
  REQUIRE(encode_nak({}, touching, out).error() == Errc::BadRangeList);
  REQUIRE(encode_nak({}, std::vector<BlockRange>{}, out).error() == Errc::BadRangeList);
  REQUIRE(encode_nak({}, std::vector<BlockRange>{{3, 0}}, out).error() == Errc::BadRangeList);
  std::vector<BlockRange> decoded;
  const std::vector<std::uint8_t> zero_gap{0x00, 0x02, 0x05, 0x00, 0x00, 0x00};
  REQUIRE(decode_nak(zero_gap, decoded).error() == Errc::BadRangeList);
  const std::vector<std::uint8_t> lying_count{0x00, 0x3f, 0x05, 0x00};
  REQUIRE(decode_nak(lying_count, decoded).error() == Errc::BadRangeList);
  const std::vector<std::uint8_t> no_ranges{0x00, 0x00};
  REQUIRE(decode_nak(no_ranges, decoded).error() == Errc::BadRangeList);
  const std::vector<std::uint8_t> bad_flags{0x02, 0x01, 0x05, 0x00};
  REQUIRE(decode_nak(bad_flags, decoded).error() == Errc::ReservedBits);
  const std::vector<std::uint8_t> overflow{0x00, 0x01, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 0xff, 0xff, 0x05};
  REQUIRE(decode_nak(overflow, decoded).error() == Errc::BadRangeList);
  const std::vector<std::uint8_t> trailing{0x00, 0x01, 0x05, 0x00, 0x09};
  REQUIRE(decode_nak(trailing, decoded).error() == Errc::TrailingBytes);
}

TEST_CASE("ACK, FEEDBACK, XFER, PING, CLOSE and CLOSE_ACK bodies round-trip", "[udpx]") {
  const AckBody ack{1404 * 1000, 1404 * 900, 1200, 65536, {77, 0xFFFFFFFF, 250}};
  const auto ack_bytes = encoded([&](auto out) { return encode_ack(ack, out); });
  REQUIRE(*decode_ack(ack_bytes) == ack);

  FeedbackBody feedback;
  feedback.interval_us = 10'000;
  feedback.queue_delay_min_us = 120;
  feedback.queue_delay_mean_us = 800;
  feedback.receive_rate = 37'500'000;
  feedback.packets_received = 267;
  feedback.packets_lost = 3;
  feedback.packets_duplicate = 1;
  feedback.host_drops = 0;
  feedback.ring_occupancy = 0x8000;
  feedback.disk_rate = 36'000'000;
  feedback.disk_cap = 0;
  feedback.echo = {9, 1234, 56};
  const auto feedback_bytes = encoded([&](auto out) { return encode_feedback(feedback, out); });
  REQUIRE(*decode_feedback(feedback_bytes) == feedback);

  const XferBody xfer{1ULL << 40, kUnknownLength, 1404, 0};
  const auto xfer_bytes = encoded([&](auto out) { return encode_xfer(xfer, out); });
  REQUIRE(*decode_xfer(xfer_bytes) == xfer);

  const PingBody ping{42, 99, PingKind::TailProbe};
  const auto ping_bytes = encoded([&](auto out) { return encode_ping(ping, out); });
  REQUIRE(*decode_ping(ping_bytes) == ping);

  const CloseBody close{CloseCode::StorageError, 5 * 1024 * 1024 + 7, "disk full"};
  const auto close_bytes = encoded([&](auto out) { return encode_close(close, out); });
  const auto decoded_close = decode_close(close_bytes);
  REQUIRE(decoded_close);
  REQUIRE(decoded_close->code == CloseCode::StorageError);
  REQUIRE(decoded_close->final_bytes == close.final_bytes);
  REQUIRE(decoded_close->reason == "disk full");

  const auto ack_code =
      encoded([&](auto out) { return encode_close_ack(CloseCode::Aborted, out); });
  REQUIRE(*decode_close_ack(ack_code) == CloseCode::Aborted);
}

TEST_CASE("Bodies cut short or followed by bytes are refused", "[udpx]") {
  const AckBody ack{1, 2, 3, 4, {5, 6, 7}};
  auto bytes = encoded([&](auto out) { return encode_ack(ack, out); });
  REQUIRE(decode_ack(std::span(bytes).first(bytes.size() - 1)).error() == Errc::Truncated);
  bytes.push_back(0);
  REQUIRE(decode_ack(bytes).error() == Errc::TrailingBytes);
  const std::vector<std::uint8_t> long_reason{0x00, 0x00, 0x10, 'x'};
  REQUIRE(decode_close(long_reason).error() == Errc::Truncated);
  const std::vector<std::uint8_t> bad_kind{0x01, 0x01, 0x07};
  REQUIRE(decode_ping(bad_kind).error() == Errc::ReservedBits);
}

TEST_CASE("HELLO pads to the size asked for and only with zeros", "[udpx]") {
  HelloBody hello;
  hello.source_cid = 0xDEADBEEF;
  hello.receive_buffer_bytes = 64 << 20;
  hello.encrypt = true;
  hello.target_rate_bps = 1'000'000'000;
  hello.min_rate_bps = 10'000'000;
  hello.policy = Policy::High;
  hello.tx_time_us = 123456;
  auto bytes = encoded([&](auto out) { return encode_hello(hello, 1404, out); });
  REQUIRE(bytes.size() == 1404);
  REQUIRE(*decode_hello(bytes) == hello);
  bytes.back() = 1;
  REQUIRE(decode_hello(bytes).error() == Errc::ReservedBits);
  const auto unpadded = encoded([&](auto out) { return encode_hello(hello, 0, out); });
  REQUIRE(unpadded.size() < 40);
  REQUIRE(*decode_hello(unpadded) == hello);
  REQUIRE(decode_hello(std::span(unpadded).first(10)).error() == Errc::Truncated);
  // A body that ends before the start rate (an unpadded one from before it) reads as none.
  hello.start_rate_bps = 280'000'000;
  const auto hinted = encoded([&](auto out) { return encode_hello(hello, 0, out); });
  REQUIRE(decode_hello(hinted)->start_rate_bps == 280'000'000);
  auto older = hello;
  older.start_rate_bps = 0;
  const auto without = encoded([&](auto out) { return encode_hello(older, 0, out); });
  REQUIRE(*decode_hello(std::span(without).first(without.size() - 1)) == older);
}
