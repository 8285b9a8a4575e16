#include "protocol/udpx/queuing_delay.hpp"

#include <algorithm>
#include <cmath>

namespace gridftp::protocol::udpx {

std::int64_t QueuingDelayEstimator::unwrapped_delay(std::int64_t receive_time_us,
                                                    std::uint32_t tx_time_us) {
  // The difference of two µs clocks mod 2^32, taken relative to the first packet's: a signed
  // 32-bit step is exact as long as the delay changes by less than 35 minutes.
  const auto raw =
      static_cast<std::uint32_t>(static_cast<std::uint64_t>(receive_time_us)) - tx_time_us;
  if (!first_raw_) {
    first_raw_ = raw;
    first_delay_ = 0;
  }
  return first_delay_ + static_cast<std::int32_t>(raw - *first_raw_);
}

std::int64_t QueuingDelayEstimator::baseline_at(std::int64_t receive_time_us) const {
  return static_cast<std::int64_t>(
      std::llround(intercept_ + skew_ * static_cast<double>(receive_time_us)));
}

void QueuingDelayEstimator::refit() {
  std::array<const Bucket*, kBuckets> used{};
  std::size_t count = 0;
  for (const auto& bucket : buckets_)
    if (bucket.second >= 0) used[count++] = &bucket;
  if (count == 0) return;
  skew_ = 0;
  if (count >= 2) {
    // Theil-Sen: the median of the slopes between every pair of per-second minima.
    std::size_t slopes = 0;
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = i + 1; j < count; ++j) {
        const auto dt = static_cast<double>(used[j]->at - used[i]->at);
        if (dt == 0) continue;
        slopes_[slopes++] = static_cast<double>(used[j]->min_delay - used[i]->min_delay) / dt;
      }
    }
    if (slopes > 0) {
      const auto end = slopes_.begin() + static_cast<std::ptrdiff_t>(slopes);
      const auto middle = slopes_.begin() + static_cast<std::ptrdiff_t>(slopes / 2);
      std::nth_element(slopes_.begin(), middle, end);
      skew_ = std::clamp(*middle, -kMaxSkew, kMaxSkew);
    }
  }
  intercept_ = HUGE_VAL;
  for (std::size_t i = 0; i < count; ++i)
    intercept_ = std::min(intercept_, static_cast<double>(used[i]->min_delay) -
                                          skew_ * static_cast<double>(used[i]->at));
  fitted_ = true;
}

std::int64_t QueuingDelayEstimator::on_packet(std::int64_t receive_time_us,
                                              std::uint32_t tx_time_us) {
  const auto delay = unwrapped_delay(receive_time_us, tx_time_us);
  const auto second = receive_time_us / kBucketMicroseconds;
  auto* bucket = &buckets_[current_];
  if (bucket->second != second) {
    if (bucket->second >= 0) {
      refit();  // a second closed: the fit uses whole seconds only (once per second, not per
                // packet)
      current_ = (current_ + 1) % kBuckets;
      bucket = &buckets_[current_];
    }
    *bucket = Bucket{second, receive_time_us, delay};
  } else if (delay < bucket->min_delay) {
    bucket->min_delay = delay;
    bucket->at = receive_time_us;
  }
  if (!fitted_) {
    // The first second: no slope yet, the lowest delay so far is the baseline.
    return std::max<std::int64_t>(0, delay - bucket->min_delay);
  }
  // The running second may hold a new lowest point (a route change, or the start).
  const auto intercept_now = std::min(
      intercept_, static_cast<double>(bucket->min_delay) - skew_ * static_cast<double>(bucket->at));
  intercept_ = intercept_now;
  return std::max<std::int64_t>(0, delay - baseline_at(receive_time_us));
}

}  // namespace gridftp::protocol::udpx
