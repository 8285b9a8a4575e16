// Block I/O on open files for UDPX endpoints: positional reads and writes (pread/pwrite), so
// retransmissions re-read their block wherever it lies and blocks arriving out of order are
// written in place (docs/UDPX.md §3.1). The descriptors stay the caller's.
#pragma once

#include <memory>
#include <vector>

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

// A source that reads ahead: a block at or past the last chunk read comes with the next chunk
// (1 MiB) in one read, so first copies, which go in order, cost one system call per chunk, not
// per block. A retransmission behind the chunk is read on its own.
class ReadAheadSource final : public BlockSource {
 public:
  explicit ReadAheadSource(std::unique_ptr<BlockSource> inner, std::size_t chunk_bytes = 1 << 20)
      : inner_(std::move(inner)), chunk_(chunk_bytes) {}
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override;

 private:
  std::unique_ptr<BlockSource> inner_;
  std::vector<std::uint8_t> chunk_;
  std::uint64_t start_ = 0;
  std::uint64_t end_ = 0;  // chunk_ holds [start_, end_)
};

// A sink that gathers blocks arriving one after another (most of them, on a path that loses
// few) into writes of up to 1 MiB; a block that does not follow the last goes after a flush.
// Nothing is reported written (the inner sink's records) before it really was.
class CoalescingSink final : public BlockSink {
 public:
  explicit CoalescingSink(std::unique_ptr<BlockSink> inner, std::size_t buffer_bytes = 1 << 20)
      : inner_(std::move(inner)), capacity_(buffer_bytes) {
    pending_.reserve(buffer_bytes);
  }
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  bool absorbs(std::uint64_t offset, std::size_t bytes) const override;
  Result<void> flush() override;

 private:
  std::unique_ptr<BlockSink> inner_;
  const std::size_t capacity_;
  std::vector<std::uint8_t> pending_;
  std::uint64_t pending_at_ = 0;  // where pending_ goes
};

}  // namespace gridftp::transport::udpx
