#include "protocol/mode_e/block_planner.hpp"

#include <algorithm>
#include <utility>

#include "protocol/mode_e/mode_e_errors.hpp"

namespace gridftp::protocol::mode_e {

Result<BlockPlanner> BlockPlanner::create(const std::vector<restart::Range>& ranges,
                                          std::uint64_t block_size_bytes) {
  if (block_size_bytes == 0) return make_error(make_error_code(Errc::BadBlockSize));
  restart::ByteRangeSet merged;
  for (const auto& range : ranges) merged.insert(range);
  return BlockPlanner(merged.ranges(), block_size_bytes);
}

Result<BlockPlanner> BlockPlanner::for_restart(std::uint64_t start, std::uint64_t end,
                                               const restart::ByteRangeSet& already_present,
                                               std::uint64_t block_size_bytes) {
  return create(already_present.gaps(start, end), block_size_bytes);
}

BlockPlanner::BlockPlanner(std::vector<restart::Range> ranges, std::uint64_t block_size_bytes)
    : ranges_(std::move(ranges)), block_size_bytes_(block_size_bytes) {
  for (const auto& range : ranges_) remaining_bytes_ += range.length();
  if (!ranges_.empty()) cursor_ = ranges_.front().start;
}

std::optional<Block> BlockPlanner::next_block() {
  if (is_done()) return std::nullopt;
  const auto& range = ranges_[next_range_];
  // Distance to the next multiple of the block size; never 0, never overflows.
  const auto to_boundary = block_size_bytes_ - cursor_ % block_size_bytes_;
  const auto length = std::min(to_boundary, range.end - cursor_);
  const Block block{cursor_, length};
  cursor_ += length;
  remaining_bytes_ -= length;
  if (cursor_ == range.end) {
    ++next_range_;
    if (!is_done()) cursor_ = ranges_[next_range_].start;
  }
  return block;
}

}  // namespace gridftp::protocol::mode_e
