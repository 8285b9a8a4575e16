#include "protocol/udpx/control_bodies.hpp"

namespace gridftp::protocol::udpx {
namespace {

constexpr std::uint8_t kNakComplete = 0x01;

Unexpected error(Errc e) { return make_error(make_error_code(e)); }

// A body decoder ends here: every byte read, none left over.
template <typename T>
Result<T> finish(const ByteReader& reader, T value) {
  if (!reader.ok()) return error(Errc::Truncated);
  if (reader.remaining() != 0) return error(Errc::TrailingBytes);
  return value;
}

void write_echo(ByteWriter& writer, const Echo& echo) {
  writer.varint(echo.packet_number);
  writer.varint(echo.tx_time_us);
  writer.varint(echo.ack_delay_us);
}

Echo read_echo(ByteReader& reader) {
  Echo echo;
  echo.packet_number = reader.varint();
  echo.tx_time_us = reader.varint();
  echo.ack_delay_us = reader.varint();
  return echo;
}

bool ranges_valid(std::span<const BlockRange> ranges) {
  if (ranges.empty()) return false;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto& range = ranges[i];
    if (range.count == 0 || range.start > kVarintMax - range.count) return false;
    // The next range must leave at least one received block in between (gap >= 1).
    if (i > 0 && range.start <= ranges[i - 1].start + ranges[i - 1].count) return false;
  }
  return true;
}

// What precedes a range's count on the wire: the first range's start, then each Gap, the
// number of received blocks since the previous range ended (>= 1).
std::uint64_t range_lead(std::span<const BlockRange> ranges, std::size_t i) {
  return i == 0 ? ranges[0].start : ranges[i].start - (ranges[i - 1].start + ranges[i - 1].count);
}

}  // namespace

Result<std::size_t> encode_ack(const AckBody& body, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.varint(body.cumulative_offset);
  writer.varint(body.written_offset);
  writer.varint(body.highest_block);
  writer.varint(body.window_blocks);
  write_echo(writer, body.echo);
  return writer.finish();
}

Result<AckBody> decode_ack(std::span<const std::uint8_t> bytes) {
  ByteReader reader(bytes);
  AckBody body;
  body.cumulative_offset = reader.varint();
  body.written_offset = reader.varint();
  body.highest_block = reader.varint();
  body.window_blocks = reader.varint();
  body.echo = read_echo(reader);
  return finish(reader, body);
}

Result<NakEncoding> encode_nak(NakHeader header, std::span<const BlockRange> ranges,
                               std::span<std::uint8_t> out) {
  if (!ranges_valid(ranges)) return error(Errc::BadRangeList);
  // Count first, so RangeCount is exact: flags (1) + RangeCount + the ranges that fit.
  std::size_t fitted = 0;
  std::size_t range_bytes = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto cost = varint_size(range_lead(ranges, i)) + varint_size(ranges[i].count - 1);
    if (1 + varint_size(fitted + 1) + range_bytes + cost > out.size()) break;
    range_bytes += cost;
    ++fitted;
  }
  if (fitted == 0) return error(Errc::BufferTooSmall);
  ByteWriter writer(out);
  writer.u8(header.complete && fitted == ranges.size() ? kNakComplete : 0);
  writer.varint(fitted);
  for (std::size_t i = 0; i < fitted; ++i) {
    writer.varint(range_lead(ranges, i));
    writer.varint(ranges[i].count - 1);
  }
  auto written = writer.finish();
  if (!written) return make_error(written.error());
  return NakEncoding{fitted, *written};
}

Result<NakHeader> decode_nak(std::span<const std::uint8_t> bytes, std::vector<BlockRange>& ranges) {
  ranges.clear();
  ByteReader reader(bytes);
  const auto flags = reader.u8();
  const auto count = reader.varint();
  if (!reader.ok()) return error(Errc::Truncated);
  if ((flags & ~kNakComplete) != 0) return error(Errc::ReservedBits);
  // Each range takes at least two bytes: a count beyond that is a lie, not a reason to reserve.
  if (count == 0 || count > reader.remaining() / 2) return error(Errc::BadRangeList);
  std::uint64_t next_start = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto lead = reader.varint();
    const auto extra = reader.varint();
    if (!reader.ok()) return error(Errc::Truncated);
    if (i > 0 && lead == 0) return error(Errc::BadRangeList);
    if (lead > kVarintMax - next_start) return error(Errc::BadRangeList);
    const auto start = next_start + lead;
    if (extra >= kVarintMax - start) return error(Errc::BadRangeList);
    ranges.push_back({start, extra + 1});
    next_start = start + extra + 1;
  }
  return finish(reader, NakHeader{(flags & kNakComplete) != 0});
}

Result<std::size_t> encode_feedback(const FeedbackBody& body, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.varint(body.interval_us);
  writer.varint(body.queue_delay_min_us);
  writer.varint(body.queue_delay_mean_us);
  writer.varint(body.receive_rate);
  writer.varint(body.packets_received);
  writer.varint(body.packets_lost);
  writer.varint(body.packets_duplicate);
  writer.varint(body.host_drops);
  writer.u16(body.ring_occupancy);
  writer.varint(body.disk_rate);
  writer.varint(body.disk_cap);
  write_echo(writer, body.echo);
  return writer.finish();
}

Result<FeedbackBody> decode_feedback(std::span<const std::uint8_t> bytes) {
  ByteReader reader(bytes);
  FeedbackBody body;
  body.interval_us = reader.varint();
  body.queue_delay_min_us = reader.varint();
  body.queue_delay_mean_us = reader.varint();
  body.receive_rate = reader.varint();
  body.packets_received = reader.varint();
  body.packets_lost = reader.varint();
  body.packets_duplicate = reader.varint();
  body.host_drops = reader.varint();
  body.ring_occupancy = reader.u16();
  body.disk_rate = reader.varint();
  body.disk_cap = reader.varint();
  body.echo = read_echo(reader);
  return finish(reader, body);
}

Result<std::size_t> encode_xfer(const XferBody& body, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.varint(body.base);
  writer.varint(body.length);
  writer.varint(body.block_bytes);
  writer.varint(body.file_size);
  return writer.finish();
}

Result<XferBody> decode_xfer(std::span<const std::uint8_t> bytes) {
  ByteReader reader(bytes);
  XferBody body;
  body.base = reader.varint();
  body.length = reader.varint();
  body.block_bytes = reader.varint();
  body.file_size = reader.varint();
  return finish(reader, body);
}

Result<std::size_t> encode_ping(const PingBody& body, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.varint(body.id);
  writer.varint(body.tx_time_us);
  writer.u8(static_cast<std::uint8_t>(body.kind));
  return writer.finish();
}

Result<PingBody> decode_ping(std::span<const std::uint8_t> bytes) {
  ByteReader reader(bytes);
  PingBody body;
  body.id = reader.varint();
  body.tx_time_us = reader.varint();
  const auto kind = reader.u8();
  if (reader.ok() && kind > static_cast<std::uint8_t>(PingKind::Reply))
    return error(Errc::ReservedBits);
  body.kind = static_cast<PingKind>(kind);
  return finish(reader, body);
}

Result<std::size_t> encode_close(const CloseBody& body, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.varint(static_cast<std::uint64_t>(body.code));
  writer.varint(body.final_bytes);
  writer.varint(body.reason.size());
  writer.bytes({reinterpret_cast<const std::uint8_t*>(body.reason.data()), body.reason.size()});
  return writer.finish();
}

Result<CloseBody> decode_close(std::span<const std::uint8_t> bytes) {
  ByteReader reader(bytes);
  CloseBody body;
  body.code = static_cast<CloseCode>(reader.varint());
  body.final_bytes = reader.varint();
  const auto length = reader.varint();
  if (!reader.ok() || length > reader.remaining()) return error(Errc::Truncated);
  const auto reason = reader.bytes(static_cast<std::size_t>(length));
  body.reason = {reinterpret_cast<const char*>(reason.data()), reason.size()};
  return finish(reader, body);
}

Result<std::size_t> encode_close_ack(CloseCode code, std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.varint(static_cast<std::uint64_t>(code));
  return writer.finish();
}

Result<CloseCode> decode_close_ack(std::span<const std::uint8_t> bytes) {
  ByteReader reader(bytes);
  const auto code = static_cast<CloseCode>(reader.varint());
  return finish(reader, code);
}

Result<std::size_t> encode_hello(const HelloBody& body, std::size_t padded_bytes,
                                 std::span<std::uint8_t> out) {
  ByteWriter writer(out);
  writer.u32(body.versions);
  writer.u32(body.source_cid);
  writer.varint(body.max_udp_payload);
  writer.varint(body.receive_buffer_bytes);
  writer.u8(body.encrypt ? 1 : 0);
  writer.varint(body.target_rate_bps);
  writer.varint(body.min_rate_bps);
  writer.u8(static_cast<std::uint8_t>(body.policy));
  writer.varint(body.tx_time_us);
  writer.varint(body.echo_tx_time_us);
  writer.varint(body.start_rate_bps);
  if (padded_bytes > writer.size()) writer.zeros(padded_bytes - writer.size());
  return writer.finish();
}

Result<HelloBody> decode_hello(std::span<const std::uint8_t> bytes) {
  ByteReader reader(bytes);
  HelloBody body;
  body.versions = reader.u32();
  body.source_cid = reader.u32();
  body.max_udp_payload = reader.varint();
  body.receive_buffer_bytes = reader.varint();
  const auto protection = reader.u8();
  body.target_rate_bps = reader.varint();
  body.min_rate_bps = reader.varint();
  const auto policy = reader.u8();
  body.tx_time_us = reader.varint();
  body.echo_tx_time_us = reader.varint();
  if (reader.remaining() > 0) body.start_rate_bps = reader.varint();
  if (!reader.ok()) return error(Errc::Truncated);
  if (protection > 1 || policy > static_cast<std::uint8_t>(Policy::Low))
    return error(Errc::ReservedBits);
  body.encrypt = protection == 1;
  body.policy = static_cast<Policy>(policy);
  for (const auto byte : reader.rest())
    if (byte != 0) return error(Errc::ReservedBits);
  return body;
}

}  // namespace gridftp::protocol::udpx
