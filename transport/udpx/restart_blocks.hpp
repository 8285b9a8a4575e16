// Block I/O through a restart layout (protocol/udpx/restart_layout, docs/UDPX.md §8): the engine
// reads and writes positions in the stream of missing ranges; these put them at their file
// offsets. The sink also remembers which file ranges it wrote, so a receiver whose transfer
// fails knows exactly what it holds and asks for the rest next time.
#pragma once

#include <memory>

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

class LaidOutSink final : public BlockSink {
 public:
  LaidOutSink(std::unique_ptr<BlockSink> file, protocol::udpx::RestartLayout layout)
      : file_(std::move(file)), layout_(std::move(layout)) {}
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;

  // File ranges written so far (read once the transfer's thread is done).
  const protocol::restart::ByteRangeSet& written() const { return written_; }

 private:
  std::unique_ptr<BlockSink> file_;
  protocol::udpx::RestartLayout layout_;
  protocol::restart::ByteRangeSet written_;
};

}  // namespace gridftp::transport::udpx
