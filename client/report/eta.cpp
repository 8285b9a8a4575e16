#include "client/report/eta.hpp"

#include <cmath>

namespace gridftp::client::report {
namespace {

// Beyond this an estimate means nothing and would overflow the duration's count.
constexpr double kLongestEstimateSeconds = 100.0 * 24 * 3600;

}  // namespace

std::optional<Clock::duration> estimate_remaining(std::uint64_t done_bytes,
                                                  std::optional<std::uint64_t> total_bytes,
                                                  std::optional<double> bytes_per_second) {
  if (!total_bytes) {
    return std::nullopt;
  }
  if (done_bytes >= *total_bytes) {
    return Clock::duration::zero();
  }
  if (!bytes_per_second || !std::isfinite(*bytes_per_second) || *bytes_per_second <= 0) {
    return std::nullopt;
  }
  const double seconds = static_cast<double>(*total_bytes - done_bytes) / *bytes_per_second;
  if (seconds > kLongestEstimateSeconds) {
    return std::nullopt;
  }
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace gridftp::client::report
