// The plaintext bodies of UDPX control packets (docs/UDPX.md §1.5-§1.9): what the AEAD seals
// after the common header. Encoders write into the caller's buffer and decoders read from the
// opened packet; NAK ranges decode into a vector the caller keeps, so a steady stream of
// packets allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"
#include "protocol/udpx/byte_codec.hpp"
#include "protocol/udpx/packet_header.hpp"

namespace gridftp::protocol::udpx {

// Echo of the newest DATA or PING received, for the sender's RTT sample (§1.5):
// rtt = now - echo_tx_time - ack_delay (µs, mod 2^32).
struct Echo {
  std::uint64_t packet_number = 0;
  std::uint64_t tx_time_us = 0;
  std::uint64_t ack_delay_us = 0;
  friend bool operator==(const Echo&, const Echo&) = default;
};

struct AckBody {
  std::uint64_t cumulative_offset = 0;  // every byte below it received
  std::uint64_t written_offset = 0;     // every byte below it handed to storage (111 markers)
  std::uint64_t highest_block = 0;      // 1 + highest block index received
  std::uint64_t window_blocks = 0;      // free receive space, in blocks from cumulative_offset
  Echo echo;
  friend bool operator==(const AckBody&, const AckBody&) = default;
};

// Missing blocks [start, start + count), indices relative to the transfer's base.
struct BlockRange {
  std::uint64_t start = 0;
  std::uint64_t count = 1;
  friend bool operator==(const BlockRange&, const BlockRange&) = default;
};

struct NakHeader {
  bool complete = false;  // the list covers every missing block below the highest received
};

struct FeedbackBody {
  std::uint64_t interval_us = 0;
  std::uint64_t queue_delay_min_us = 0;
  std::uint64_t queue_delay_mean_us = 0;
  std::uint64_t receive_rate = 0;  // payload bytes/s in the interval, duplicates included
  std::uint64_t packets_received = 0;
  std::uint64_t packets_lost = 0;
  std::uint64_t packets_duplicate = 0;
  std::uint64_t host_drops = 0;      // growth of the socket's overflow counter
  std::uint16_t ring_occupancy = 0;  // receive ring fill x 65535
  std::uint64_t disk_rate = 0;       // bytes/s written to storage
  std::uint64_t disk_cap = 0;        // the receiver's cap: storage pace or rate limit, 0 = none
  Echo echo;
  friend bool operator==(const FeedbackBody&, const FeedbackBody&) = default;
};

inline constexpr std::uint64_t kUnknownLength = kVarintMax;

struct XferBody {
  std::uint64_t base = 0;                 // absolute offset of block 0
  std::uint64_t length = kUnknownLength;  // bytes, or unknown (ended by the F flag)
  std::uint64_t block_bytes = 0;
  std::uint64_t file_size = 0;  // 0 when not known
  friend bool operator==(const XferBody&, const XferBody&) = default;
};

enum class PingKind : std::uint8_t { Keepalive = 0, TailProbe = 1, PathMtuProbe = 2, Reply = 3 };

struct PingBody {
  std::uint64_t id = 0;
  std::uint64_t tx_time_us = 0;
  PingKind kind = PingKind::Keepalive;
  friend bool operator==(const PingBody&, const PingBody&) = default;
};

enum class CloseCode : std::uint64_t {
  Ok = 0,
  Aborted = 1,
  StorageError = 2,
  IdleTimeout = 3,
  AeadLimit = 4,
  ProtocolViolation = 5,
  FlowControlViolation = 6,
};

struct CloseBody {
  CloseCode code = CloseCode::Ok;
  std::uint64_t final_bytes = 0;
  std::string_view reason;  // decoded: points into the packet
};

enum class Policy : std::uint8_t { Fixed = 0, High = 1, Fair = 2, Low = 3 };

struct HelloBody {
  std::uint32_t versions = 1U << kVersion;  // bitmap: offered (HELLO) or chosen (HELLO_ACK)
  std::uint32_t source_cid = 0;
  std::uint64_t max_udp_payload = 1452;
  std::uint64_t receive_buffer_bytes = 0;
  bool encrypt = false;  // PROT P: DATA payloads encrypted, not only authenticated
  std::uint64_t target_rate_bps = 0;
  std::uint64_t min_rate_bps = 0;
  Policy policy = Policy::Fair;
  std::uint64_t tx_time_us = 0;
  std::uint64_t echo_tx_time_us = 0;  // HELLO_ACK: the HELLO's tx_time; HELLO: 0
  // A rate (bit/s) this path is known to carry, where the data sender's Startup may begin
  // (docs/UDPX.md §2.3); 0: none. Absent on the wire (zero padding there) reads as 0.
  std::uint64_t start_rate_bps = 0;
  friend bool operator==(const HelloBody&, const HelloBody&) = default;
};

Result<std::size_t> encode_ack(const AckBody& body, std::span<std::uint8_t> out);
Result<AckBody> decode_ack(std::span<const std::uint8_t> body);

// Writes as many of `ranges` (ascending, disjoint, non-adjacent) as fit in `out`, lowest first;
// returns how many went in. `complete` is sent only when all of them fit. Errors:
// BadRangeList (empty, unordered, touching or zero-count ranges), BufferTooSmall (not even one).
struct NakEncoding {
  std::size_t ranges = 0;  // how many of the ranges went in
  std::size_t bytes = 0;
};
Result<NakEncoding> encode_nak(NakHeader header, std::span<const BlockRange> ranges,
                               std::span<std::uint8_t> out);
// Fills `ranges` (cleared first). Errors: Truncated, BadRangeList, TrailingBytes.
Result<NakHeader> decode_nak(std::span<const std::uint8_t> body, std::vector<BlockRange>& ranges);

Result<std::size_t> encode_feedback(const FeedbackBody& body, std::span<std::uint8_t> out);
Result<FeedbackBody> decode_feedback(std::span<const std::uint8_t> body);

Result<std::size_t> encode_xfer(const XferBody& body, std::span<std::uint8_t> out);
Result<XferBody> decode_xfer(std::span<const std::uint8_t> body);

Result<std::size_t> encode_ping(const PingBody& body, std::span<std::uint8_t> out);
Result<PingBody> decode_ping(std::span<const std::uint8_t> body);

Result<std::size_t> encode_close(const CloseBody& body, std::span<std::uint8_t> out);
Result<CloseBody> decode_close(std::span<const std::uint8_t> body);

Result<std::size_t> encode_close_ack(CloseCode code, std::span<std::uint8_t> out);
Result<CloseCode> decode_close_ack(std::span<const std::uint8_t> body);

// Pads with zeros up to `padded_bytes` (the whole body; 0: no padding). Padding proves the path
// carries full-size datagrams and keeps a HELLO_ACK no larger than its HELLO.
Result<std::size_t> encode_hello(const HelloBody& body, std::size_t padded_bytes,
                                 std::span<std::uint8_t> out);
// Errors: Truncated, ReservedBits (non-zero padding or an unknown protection/policy value).
Result<HelloBody> decode_hello(std::span<const std::uint8_t> body);

}  // namespace gridftp::protocol::udpx
