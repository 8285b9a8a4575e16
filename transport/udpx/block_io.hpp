// Where a UDPX data sender reads blocks and a data receiver writes them: at absolute file
// offsets, in any order (docs/UDPX.md §3.1). The server and gridcp supply their storage; tests
// supply memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "protocol/core/result.hpp"
#include "protocol/udpx/control_bodies.hpp"

namespace gridftp::transport::udpx {

class BlockSource {
 public:
  virtual ~BlockSource() = default;
  // Fills `out` from `offset`; returns the bytes read (fewer only at the end of the data).
  virtual Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) = 0;
  // A stream's source (a transfer whose length is not known when it starts, docs/UDPX.md
  // §1.9): the absolute offset where its data ends, once known. It must be known by the time
  // read_at has returned the last block's bytes, so that block goes out with the F flag.
  virtual std::optional<std::uint64_t> end() const { return std::nullopt; }
  // Every byte below `offset` has been acknowledged and will not be read again.
  virtual void release_below(std::uint64_t /*offset*/) {}
};

class BlockSink {
 public:
  virtual ~BlockSink() = default;
  virtual Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) = 0;
  // True when write_at(offset, `bytes` bytes) would only copy into memory the sink holds, with
  // no wait on storage: the receiver then does not time it (docs/UDPX.md §2.4), which saves
  // two clock reads on almost every block.
  virtual bool absorbs(std::uint64_t /*offset*/, std::size_t /*bytes*/) const { return false; }
  // Writes what the sink still holds in memory; the receiver calls it before it reports every
  // block written, and the engine when a transfer ends either way.
  virtual Result<void> flush() { return {}; }
};

// What one transfer covers: blocks of `block_bytes` from `base` for `length` bytes; a stream's
// length is kUnknownLength until its last block (the F flag) says where it ends.
struct TransferShape {
  static constexpr std::uint64_t kUnknownLength = protocol::udpx::kUnknownLength;

  std::uint16_t transfer_id = 0;
  std::uint64_t base = 0;
  std::uint64_t length = 0;
  std::size_t block_bytes = 1404;

  bool is_stream() const { return length == kUnknownLength; }
  std::uint64_t block_count() const {
    return block_bytes == 0 ? 0 : (length + block_bytes - 1) / block_bytes;
  }
};

}  // namespace gridftp::transport::udpx
