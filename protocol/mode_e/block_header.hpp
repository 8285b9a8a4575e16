// The 17-byte MODE E block header of GFD.20 "Extended Block Mode": descriptor, count, offset, all
// big-endian. Encoding and decoding only; what the flags mean for a stream is block_decoder's job.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace gridftp::protocol::mode_e {

inline constexpr std::size_t kHeaderBytes = 17;

// Descriptor flags (GFD.20; docs/WIRE.md §2.2).
inline constexpr std::uint8_t kDescriptorEor = 0x80;      // end of record (legacy, unused)
inline constexpr std::uint8_t kDescriptorEof = 0x40;      // offset carries the EOD count
inline constexpr std::uint8_t kDescriptorErr = 0x20;      // data in this block is suspect
inline constexpr std::uint8_t kDescriptorRestart = 0x10;  // restart-marker block (not in MODE E)
inline constexpr std::uint8_t kDescriptorEod = 0x08;      // no more data on this connection
inline constexpr std::uint8_t kDescriptorClose = 0x04;    // sender closes after this header
// Every bit GFD.20 defines; 0x01 and 0x02 are unassigned.
inline constexpr std::uint8_t kDescriptorKnownBits = kDescriptorEor | kDescriptorEof |
                                                     kDescriptorErr | kDescriptorRestart |
                                                     kDescriptorEod | kDescriptorClose;

struct BlockHeader {
  std::uint8_t descriptors = 0;
  std::uint64_t count = 0;   // payload bytes that follow (unused on EOF)
  std::uint64_t offset = 0;  // absolute offset of the payload; on EOF the EOD count

  bool is_eof() const { return (descriptors & kDescriptorEof) != 0; }
  bool is_eod() const { return (descriptors & kDescriptorEod) != 0; }
  bool is_close() const { return (descriptors & kDescriptorClose) != 0; }

  friend bool operator==(const BlockHeader&, const BlockHeader&) = default;
};

// Writes the header in network order. Never fails.
std::array<std::uint8_t, kHeaderBytes> encode_header(const BlockHeader& header);

// Reads a header as it is; no validation (unknown bits and offsets are block_decoder's checks).
BlockHeader decode_header(std::span<const std::uint8_t, kHeaderBytes> bytes);

}  // namespace gridftp::protocol::mode_e
