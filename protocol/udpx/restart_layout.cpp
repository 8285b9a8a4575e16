#include "protocol/udpx/restart_layout.hpp"

#include <algorithm>

namespace gridftp::protocol::udpx {

RestartLayout::RestartLayout(const restart::ByteRangeSet& present, std::uint64_t begin,
                             std::uint64_t end)
    : gaps_(present.gaps(begin, end)) {
  starts_.reserve(gaps_.size());
  for (const auto& gap : gaps_) {
    starts_.push_back(length_);
    // An open end: the last gap runs to kOpenEnd; the sum saturates rather than wrap.
    length_ = gap.length() > kOpenEnd - length_ ? kOpenEnd : length_ + gap.length();
  }
}

std::size_t RestartLayout::first_gap_at(std::uint64_t stream_offset) const {
  // The last gap that starts at or before the offset.
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), stream_offset);
  return after == starts_.begin() ? 0 : static_cast<std::size_t>(after - starts_.begin() - 1);
}

}  // namespace gridftp::protocol::udpx
