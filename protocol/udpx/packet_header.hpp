// The cleartext front of every UDPX datagram (docs/UDPX.md §1.2-§1.4): the 16-byte common
// header, and the 16 bytes that follow it in DATA packets (offset, intended departure time,
// attempt) and in HELLO/HELLO_ACK (a random). Both 32-byte fronts are the AEAD's associated
// data, so nothing here is trusted before the tag has been checked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::udpx {

// Time on an endpoint's monotonic clock: every UDPX rule takes it as an argument.
using Microseconds = std::int64_t;

inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::size_t kCommonHeaderBytes = 16;
inline constexpr std::size_t kFrontBytes = 32;  // DATA and HELLO: common header + 16 bytes
inline constexpr std::size_t kTagBytes = 16;    // AES-GCM tag at the end of every packet
inline constexpr std::size_t kRandomBytes = 16;

enum class PacketType : std::uint8_t {
  Hello = 0,
  HelloAck = 1,
  Data = 2,
  Ack = 3,
  Nak = 4,
  Feedback = 5,
  Ping = 6,
  Close = 7,
  CloseAck = 8,
  Xfer = 9,
  KeyExchange = 10,  // TLS handshake bytes that make the connection secret (§4.1)
};

struct CommonHeader {
  PacketType type = PacketType::Data;
  bool key_phase = false;
  bool encrypted = true;        // E: payload/body encrypted (DATA may be authenticated only)
  bool retransmission = false;  // R, DATA only
  bool final_block = false;     // F, DATA only: the transfer's last block
  bool probe = false;           // P, DATA only: first of a back-to-back probe pair
  std::uint16_t transfer_id = 0;
  std::uint32_t destination_cid = 0;
  std::uint64_t packet_number = 0;

  friend bool operator==(const CommonHeader&, const CommonHeader&) = default;
};

struct DataFields {
  std::uint64_t offset = 0;      // absolute file offset of the payload's first byte
  std::uint32_t tx_time_us = 0;  // sender clock, µs mod 2^32: the intended departure time
  std::uint8_t attempt = 0;      // 0 first send, n-th retransmission (saturates at 255)

  friend bool operator==(const DataFields&, const DataFields&) = default;
};

// Writes the 16-byte common header at the start of `out`. Errors: BufferTooSmall.
Result<std::size_t> encode_common_header(const CommonHeader& header, std::span<std::uint8_t> out);
// Reads and checks it: version 1, a defined type, reserved bits clear, R/F/P only on DATA,
// E on every control packet. Errors: Truncated, BadVersion, UnknownType, ReservedBits,
// ClearControl.
Result<CommonHeader> decode_common_header(std::span<const std::uint8_t> packet);

// DATA front: the common header (type forced to Data) and the DATA fields, 32 bytes.
Result<std::size_t> encode_data_front(const CommonHeader& header, const DataFields& fields,
                                      std::span<std::uint8_t> out);
// Bytes 16..31 of a DATA packet. Errors: Truncated, ReservedBits (the 3 reserved bytes).
Result<DataFields> decode_data_fields(std::span<const std::uint8_t> packet);

// HELLO/HELLO_ACK/KEY_EXCHANGE front: the common header and the sender's random.
Result<std::size_t> encode_hello_front(const CommonHeader& header,
                                       std::span<const std::uint8_t, kRandomBytes> random,
                                       std::span<std::uint8_t> out);
Result<std::array<std::uint8_t, kRandomBytes>> decode_hello_random(
    std::span<const std::uint8_t> packet);

// Where the AEAD's associated data ends: 32 for DATA, HELLO/HELLO_ACK and KEY_EXCHANGE, 16
// otherwise.
std::size_t associated_data_bytes(PacketType type);

}  // namespace gridftp::protocol::udpx
