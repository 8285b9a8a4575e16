#include "server/session/transfer_settings.hpp"

#include <utility>

namespace gridftp::server {

void TransferSettings::restart_at(std::uint64_t offset) {
  restart_offset = offset;
  restart_ranges.reset();
}

void TransferSettings::restart_with(protocol::restart::ByteRangeSet ranges) {
  restart_ranges = std::move(ranges);
  restart_offset = 0;
}

std::uint64_t TransferSettings::take_restart_offset() { return std::exchange(restart_offset, 0); }

std::optional<protocol::restart::ByteRangeSet> TransferSettings::take_restart_ranges() {
  return std::exchange(restart_ranges, std::nullopt);
}

std::optional<std::uint64_t> TransferSettings::take_allocated_bytes() {
  return std::exchange(allocated_bytes, std::nullopt);
}

}  // namespace gridftp::server
