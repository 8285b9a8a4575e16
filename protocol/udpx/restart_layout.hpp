// A restarted UDPX transfer moves only what the receiver lacks (docs/UDPX.md §8): the byte
// ranges missing from the REST range list, laid end to end, form the stream the engine numbers
// its blocks in, and DATA offsets are positions in that stream. Both ends build the layout from
// the same list: the sender over the file it has ([begin, end)), the receiver with an open end,
// since the file's tail past the list is missing too and only the sender knows its length.
// Pure.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::protocol::udpx {

class RestartLayout {
 public:
  static constexpr std::uint64_t kOpenEnd = std::numeric_limits<std::uint64_t>::max();

  // The parts of [begin, end) not in `present`.
  RestartLayout(const restart::ByteRangeSet& present, std::uint64_t begin, std::uint64_t end);

  // Bytes of the stream (kOpenEnd-ish when the end is open).
  std::uint64_t length() const { return length_; }

  // A piece of file a stream span maps to.
  struct Piece {
    std::uint64_t file_offset = 0;
    std::uint64_t stream_offset = 0;
    std::uint64_t length = 0;
  };
  // Calls `visit(piece)` for each piece of the stream span [offset, offset + count), in order;
  // a span running past the stream's end stops there.
  template <typename Visit>
  void for_each_piece(std::uint64_t offset, std::uint64_t count, Visit visit) const {
    const std::uint64_t end = offset + std::min(count, length_ - std::min(offset, length_));
    for (auto i = first_gap_at(offset); i < gaps_.size() && offset < end; ++i) {
      const auto& gap = gaps_[i];
      const std::uint64_t into = offset - starts_[i];
      const std::uint64_t take = std::min(gap.length() - into, end - offset);
      visit(Piece{gap.start + into, offset, take});
      offset += take;
    }
  }

 private:
  std::size_t first_gap_at(std::uint64_t stream_offset) const;

  std::vector<restart::Range> gaps_;
  std::vector<std::uint64_t> starts_;  // stream offset of each gap
  std::uint64_t length_ = 0;
};

}  // namespace gridftp::protocol::udpx
