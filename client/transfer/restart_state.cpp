#include "client/transfer/restart_state.hpp"

namespace gridftp::client {

std::optional<std::string> restart_argument(bool extended_block_mode,
                                            const protocol::restart::ByteRangeSet& present) {
  if (present.empty()) {
    return std::nullopt;
  }
  if (extended_block_mode) {
    return present.format_range_list();
  }
  const auto& first = present.ranges().front();
  if (first.start != 0) {
    return std::nullopt;
  }
  return std::to_string(first.end);
}

bool stream_resume_needs_size(const RestartState& state) {
  return state.resume && state.dest_store_began && !state.dest_sends_markers;
}

std::uint64_t stream_resume_offset(const RestartState& state,
                                   std::optional<std::uint64_t> dest_size, std::uint64_t length) {
  if (!state.resume) {
    return 0;
  }
  std::uint64_t held = 0;
  if (state.dest_sends_markers) {
    const auto& ranges = state.dest_ranges.ranges();
    held = !ranges.empty() && ranges.front().start == 0 ? ranges.front().end : 0;
  } else if (state.dest_store_began && dest_size) {
    held = *dest_size;
  }
  return held < length ? held : 0;
}

}  // namespace gridftp::client
