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

}  // namespace gridftp::client
