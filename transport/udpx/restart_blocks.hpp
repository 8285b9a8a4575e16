// Block I/O through a restart layout (protocol/udpx/restart_layout, docs/UDPX.md §8): the engine
// reads and writes positions in the stream of missing ranges; these put them at their file
// offsets. The sink also remembers which file ranges it wrote, so a receiver reports exactly what
// it holds (111 markers) and, when the transfer fails, asks for only the rest next time.
#pragma once

#include <memory>
#include <mutex>

#include "protocol/restart/byte_range_set.hpp"
#include "protocol/udpx/restart_layout.hpp"
#include "transport/udpx/block_io.hpp"

namespace gridftp::transport::udpx {

class LaidOutSource final : public BlockSource {
 public:
  LaidOutSource(std::unique_ptr<BlockSource> file, protocol::udpx::RestartLayout layout)
      : file_(std::move(file)), layout_(std::move(layout)) {}
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override;

 private:
  std::unique_ptr<BlockSource> file_;
  protocol::udpx::RestartLayout layout_;
};

// File ranges a sink wrote, read by the control side while the transfer's thread writes (111
// restart markers) and after it (a failed get's next REST).
class WrittenRanges {
 public:
  void insert(std::uint64_t start, std::uint64_t end) {
    const std::lock_guard lock(mutex_);
    ranges_.insert(start, end);
  }
  protocol::restart::ByteRangeSet snapshot() const {
    const std::lock_guard lock(mutex_);
    return ranges_;
  }

 private:
  mutable std::mutex mutex_;
  protocol::restart::ByteRangeSet ranges_;
};

class LaidOutSink final : public BlockSink {
 public:
  LaidOutSink(std::unique_ptr<BlockSink> file, protocol::udpx::RestartLayout layout,
              std::shared_ptr<WrittenRanges> written = std::make_shared<WrittenRanges>())
      : file_(std::move(file)), layout_(std::move(layout)), written_(std::move(written)) {}
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;

  protocol::restart::ByteRangeSet written() const { return written_->snapshot(); }

 private:
  std::unique_ptr<BlockSink> file_;
  protocol::udpx::RestartLayout layout_;
  std::shared_ptr<WrittenRanges> written_;
};

}  // namespace gridftp::transport::udpx
