#include "protocol/udpx/storage_pace.hpp"

#include <algorithm>

namespace gridftp::protocol::udpx {

StoragePace::Report StoragePace::end_interval(Microseconds interval) {
  Report report;
  if (interval <= 0) return report;
  const double seconds = static_cast<double>(interval) * 1e-6;
  report.rate = static_cast<std::uint64_t>(static_cast<double>(bytes_) / seconds);
  if (bytes_ > 0 && busy_ > 0) {
    const double measured = static_cast<double>(bytes_) / (static_cast<double>(busy_) * 1e-6);
    capacity_ = capacity_ == 0 ? measured : 0.75 * capacity_ + 0.25 * measured;
    const double share = std::min(1.0, static_cast<double>(busy_) / static_cast<double>(interval));
    if (share > kLimitingShare) limiting_ = true;
    if (share < kReleaseShare) limiting_ = false;
  }
  if (limiting_) report.cap = static_cast<std::uint64_t>(kHeadroom * capacity_);
  bytes_ = 0;
  busy_ = 0;
  return report;
}

}  // namespace gridftp::protocol::udpx
