// Sender-side MODE E work list: cuts the byte ranges still to send (a file's [start, end) minus the
// REST ranges the receiver already holds; docs/WIRE.md §2.6) into blocks that parallel streams pull
// one at a time, so a fast stream simply takes more blocks. It does no I/O and sends no EOD/EOF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "protocol/core/result.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::protocol::mode_e {

struct Block {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  friend bool operator==(const Block&, const Block&) = default;
};

class BlockPlanner {
 public:
  // Plans `ranges` (any order; overlaps merge). Blocks never cross a multiple of
  // `block_size_bytes` (absolute offsets), so a range starting mid-block first gets the short
  // piece up to the next boundary; this matches Globus after `REST 0-4980736` (blocks at
  // 4980736, 5242880, ... with 256 KiB blocks) and keeps storage writes aligned.
  // Errors: Errc::BadBlockSize when block_size_bytes is 0.
  static Result<BlockPlanner> create(const std::vector<restart::Range>& ranges,
                                     std::uint64_t block_size_bytes);

  // The file bytes [start, end) minus `already_present` (a parsed REST range list).
  // Errors: as create().
  static Result<BlockPlanner> for_restart(std::uint64_t start, std::uint64_t end,
                                          const restart::ByteRangeSet& already_present,
                                          std::uint64_t block_size_bytes);

  // The next block for whichever stream asks; nullopt once everything is handed out. Blocks come
  // in ascending offset order; how many streams pull does not change the plan.
  std::optional<Block> next_block();

  std::uint64_t remaining_bytes() const { return remaining_bytes_; }
  bool is_done() const { return next_range_ == ranges_.size(); }

 private:
  BlockPlanner(std::vector<restart::Range> ranges, std::uint64_t block_size_bytes);

  std::vector<restart::Range> ranges_;
  std::uint64_t block_size_bytes_;
  std::size_t next_range_ = 0;
  std::uint64_t cursor_ = 0;  // next offset inside ranges_[next_range_]
  std::uint64_t remaining_bytes_ = 0;
};

}  // namespace gridftp::protocol::mode_e
