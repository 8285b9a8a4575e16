// Where a UDPX data sender reads blocks and a data receiver writes them: at absolute file
// offsets, in any order (docs/UDPX.md §3.1). The server and gridcp supply their storage; tests
// supply memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/core/result.hpp"

namespace gridftp::transport::udpx {

class BlockSource {
 public:
  virtual ~BlockSource() = default;
  // Fills `out` from `offset`; returns the bytes read (fewer only at the end of the data).
  virtual Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) = 0;
};

class BlockSink {
 public:
  virtual ~BlockSink() = default;
  virtual Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) = 0;
};

// What one transfer covers: blocks of `block_bytes` from `base` for `length` bytes.
struct TransferShape {
  std::uint16_t transfer_id = 0;
  std::uint64_t base = 0;
  std::uint64_t length = 0;
  std::size_t block_bytes = 1404;

  std::uint64_t block_count() const {
    return block_bytes == 0 ? 0 : (length + block_bytes - 1) / block_bytes;
  }
};

}  // namespace gridftp::transport::udpx
