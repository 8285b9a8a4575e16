// The two ends of a UDPX stream (a transfer whose length is not known when it starts,
// docs/UDPX.md §1.9) for data that is made and consumed in order, such as a batch of files
// (docs/WIRE.md §7): the sender's source keeps what its producer made until the receiver has
// acknowledged it (a lost block is read again), and the receiver's sink holds blocks that
// arrive ahead of a gap until the gap is filled, then hands the bytes over in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transport/udpx/block_io.hpp"

namespace gridftp::transport::udpx {

// The receiver's window for an OrderedStreamSink: blocks ahead of a gap wait in memory, 46 MB
// at the default block size (4 round trips of 300 Mb/s at 300 ms).
inline constexpr std::size_t kOrderedWindowBlocks = 32768;

class SpooledStreamSource final : public BlockSource {
 public:
  // Appends the stream's next bytes to `out`, at least `want` unless the stream ends there;
  // true once the last byte is in `out`.
  using Producer = std::function<Result<bool>(std::string& out, std::size_t want)>;
  // The stream starts at offset `base`.
  explicit SpooledStreamSource(Producer produce, std::uint64_t base = 0);

  // Errors: the producer's (kept in error()); EINVAL below a released offset.
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override;
  std::optional<std::uint64_t> end() const override;
  void release_below(std::uint64_t offset) override;

  // Bytes held now (made and not yet released), for tests and limits.
  std::uint64_t held_bytes() const { return made_ - chunks_start(); }
  // The producer's error, once it failed.
  const std::optional<std::error_code>& error() const { return error_; }

 private:
  struct Chunk {
    std::uint64_t start = 0;
    std::string bytes;
  };
  std::uint64_t chunks_start() const { return chunks_.empty() ? made_ : chunks_.front().start; }
  // Makes bytes until `until` or the end. Errors: the producer's.
  Result<void> make_until(std::uint64_t until);

  Producer produce_;
  std::deque<Chunk> chunks_;
  std::uint64_t made_;  // one past the last byte made
  bool ended_ = false;
  std::optional<std::error_code> error_;
};

class OrderedStreamSink final : public BlockSink {
 public:
  // Takes the stream's bytes in order. Errors stop the transfer (the receiver closes with a
  // storage error).
  using Consumer = std::function<Result<void>(std::span<const char> bytes)>;
  // Blocks of `block_bytes` from `base`; at most `window_blocks` past the first missing one
  // can wait (the receiver's window must not be larger).
  OrderedStreamSink(Consumer consume, std::uint64_t base, std::size_t block_bytes,
                    std::size_t window_blocks);

  // Errors: the consumer's; EINVAL for a block outside the window.
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;

  // One past the last byte handed to the consumer.
  std::uint64_t delivered() const { return next_; }
  std::size_t waiting_blocks() const { return waiting_; }

 private:
  Result<void> deliver(std::span<const std::uint8_t> bytes);
  std::size_t slot(std::uint64_t offset) const;

  Consumer consume_;
  const std::uint64_t base_;
  const std::size_t block_bytes_;
  const std::size_t window_blocks_;
  std::unique_ptr<std::uint8_t[]> ring_;  // window_blocks_ blocks, allocated on first need
  std::vector<std::uint32_t> lengths_;    // bytes waiting in each slot; 0: none
  std::uint64_t next_;                    // the next offset the consumer takes
  std::size_t waiting_ = 0;
};

}  // namespace gridftp::transport::udpx
