#include "transport/udpx/stream_blocks.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/core/errors.hpp"

namespace gridftp::transport::udpx {
namespace {

// The producer is asked for this much at a time: few calls, and releases free whole chunks.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

}  // namespace

SpooledStreamSource::SpooledStreamSource(Producer produce, std::uint64_t base)
    : produce_(std::move(produce)), made_(base) {}

Result<void> SpooledStreamSource::make_until(std::uint64_t until) {
  while (!ended_ && made_ < until) {
    if (error_) return make_error(*error_);
    Chunk chunk{made_, {}};
    chunk.bytes.reserve(kChunkBytes + (std::size_t{64} << 10));
    auto made = produce_(chunk.bytes, kChunkBytes);
    if (!made) {
      error_ = made.error();
      return make_error(made.error());
    }
    ended_ = *made;
    made_ += chunk.bytes.size();
    if (!chunk.bytes.empty()) chunks_.push_back(std::move(chunk));
  }
  return {};
}

Result<std::size_t> SpooledStreamSource::read_at(std::uint64_t offset,
                                                 std::span<std::uint8_t> out) {
  if (offset < chunks_start()) return make_error(std::make_error_code(std::errc::invalid_argument));
  // One byte beyond the block: if the stream ends with it, end() knows before the block goes.
  if (auto made = make_until(offset + out.size() + 1); !made) return make_error(made.error());
  std::size_t copied = 0;
  auto chunk = std::upper_bound(chunks_.begin(), chunks_.end(), offset,
                                [](std::uint64_t at, const Chunk& c) { return at < c.start; });
  if (chunk != chunks_.begin()) --chunk;
  for (; chunk != chunks_.end() && copied < out.size(); ++chunk) {
    const std::uint64_t at = offset + copied;
    const std::uint64_t chunk_end = chunk->start + chunk->bytes.size();
    if (at >= chunk_end) continue;
    const auto count =
        static_cast<std::size_t>(std::min<std::uint64_t>(out.size() - copied, chunk_end - at));
    std::memcpy(out.data() + copied, chunk->bytes.data() + (at - chunk->start), count);
    copied += count;
  }
  return copied;
}

std::optional<std::uint64_t> SpooledStreamSource::end() const {
  if (!ended_) return std::nullopt;
  return made_;
}

void SpooledStreamSource::release_below(std::uint64_t offset) {
  while (!chunks_.empty() && chunks_.front().start + chunks_.front().bytes.size() <= offset) {
    chunks_.pop_front();
  }
}

OrderedStreamSink::OrderedStreamSink(Consumer consume, std::uint64_t base, std::size_t block_bytes,
                                     std::size_t window_blocks)
    : consume_(std::move(consume)),
      base_(base),
      block_bytes_(block_bytes),
      window_blocks_(window_blocks),
      lengths_(window_blocks, 0),
      next_(base) {}

std::size_t OrderedStreamSink::slot(std::uint64_t offset) const {
  return static_cast<std::size_t>(((offset - base_) / block_bytes_) % window_blocks_);
}

Result<void> OrderedStreamSink::deliver(std::span<const std::uint8_t> bytes) {
  next_ += bytes.size();
  return consume_(std::span(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

Result<void> OrderedStreamSink::write_at(std::uint64_t offset,
                                         std::span<const std::uint8_t> bytes) {
  const bool aligned = offset >= base_ && (offset - base_) % block_bytes_ == 0;
  if (!aligned || bytes.size() > block_bytes_ || offset < next_ ||
      offset - next_ >= std::uint64_t{window_blocks_} * block_bytes_) {
    return make_error(std::make_error_code(std::errc::invalid_argument));
  }
  if (offset != next_) {
    // Ahead of a gap: it waits in its slot.
    if (!ring_)
      ring_ = std::make_unique_for_overwrite<std::uint8_t[]>(window_blocks_ * block_bytes_);
    const auto at = slot(offset);
    if (lengths_[at] == 0) ++waiting_;
    std::memcpy(ring_.get() + at * block_bytes_, bytes.data(), bytes.size());
    lengths_[at] = static_cast<std::uint32_t>(bytes.size());
    return {};
  }
  if (auto taken = deliver(bytes); !taken) return taken;
  // The gap is filled: everything waiting right behind it goes too.
  while (waiting_ > 0 && lengths_[slot(next_)] != 0) {
    const auto at = slot(next_);
    const auto length = std::exchange(lengths_[at], 0);
    --waiting_;
    if (auto taken = deliver(std::span(ring_.get() + at * block_bytes_, length)); !taken)
      return taken;
  }
  return {};
}

}  // namespace gridftp::transport::udpx
