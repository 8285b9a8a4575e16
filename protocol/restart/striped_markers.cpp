#include "protocol/restart/striped_markers.hpp"

#include <numeric>

#include "protocol/restart/markers.hpp"

namespace gridftp::protocol::restart {

StripedMarkers::StripedMarkers(unsigned stripes, ByteRangeSet present)
    : held_(std::move(present)), bytes_(stripes, 0) {}

std::optional<std::string> StripedMarkers::on_range_marker(std::string_view line) {
  auto ranges = parse_range_marker(line);
  if (!ranges) return std::nullopt;
  const auto before = held_.covered_bytes();
  held_.insert(*ranges);
  if (held_.covered_bytes() == before) return std::nullopt;
  return format_range_marker_text(held_);
}

std::optional<std::vector<std::string>> StripedMarkers::on_perf_marker(
    unsigned stripe, const std::vector<std::string>& lines, std::int64_t timestamp_tenths) {
  const auto bytes = parse_perf_marker_bytes(lines);
  if (!bytes || stripe >= bytes_.size()) return std::nullopt;
  bytes_[stripe] = *bytes;
  return perf_marker_lines(timestamp_tenths, stripe, *bytes, static_cast<unsigned>(bytes_.size()));
}

std::uint64_t StripedMarkers::stripe_bytes() const {
  return std::accumulate(bytes_.begin(), bytes_.end(), std::uint64_t{0});
}

}  // namespace gridftp::protocol::restart
