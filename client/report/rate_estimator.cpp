#include "client/report/rate_estimator.hpp"

namespace gridftp::client::report {

RateEstimator::RateEstimator(Clock::duration window) : window_(window) {}

void RateEstimator::add(Clock::time_point now, std::uint64_t bytes_so_far) {
  if (!samples_.empty() && (bytes_so_far < samples_.back().bytes || now < samples_.back().time)) {
    samples_.clear();
  }
  samples_.push_back(Sample{now, bytes_so_far});
  // Keep one sample at or before the window's start, so the rate spans the whole window rather
  // than whatever part of it happens to hold samples.
  while (samples_.size() > 2 && samples_[1].time <= now - window_) {
    samples_.pop_front();
  }
  while (samples_.size() > kMaxSamples) {
    samples_.pop_front();
  }
}

std::optional<double> RateEstimator::bytes_per_second() const {
  if (samples_.size() < 2) {
    return std::nullopt;
  }
  const auto& oldest = samples_.front();
  const auto& newest = samples_.back();
  const double seconds = std::chrono::duration<double>(newest.time - oldest.time).count();
  if (seconds <= 0) {
    return std::nullopt;
  }
  return static_cast<double>(newest.bytes - oldest.bytes) / seconds;
}

}  // namespace gridftp::client::report
