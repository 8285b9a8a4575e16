// Block I/O on open files for UDPX endpoints: positional reads and writes (pread/pwrite), so
// retransmissions re-read their block wherever it lies and blocks arriving out of order are
// written in place (docs/UDPX.md §3.1). The descriptors stay the caller's.
#pragma once

#include "transport/udpx/block_io.hpp"

namespace gridftp::transport::udpx {

class FileBlockSource final : public BlockSource {
 public:
  explicit FileBlockSource(int fd) : fd_(fd) {}
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override;

 private:
  int fd_;
};

class FileBlockSink final : public BlockSink {
 public:
  explicit FileBlockSink(int fd) : fd_(fd) {}
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;

 private:
  int fd_;
};

}  // namespace gridftp::transport::udpx
