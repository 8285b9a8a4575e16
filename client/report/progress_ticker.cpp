#include "client/report/progress_ticker.hpp"

namespace gridftp::client {

ProgressTicker::ProgressTicker(Report report, Clock::duration period)
    : report_(std::move(report)), period_(period) {}

void ProgressTicker::add(std::uint64_t bytes, Clock::time_point now) {
  if (!report_) {
    return;
  }
  std::lock_guard lock(mutex_);
  total_bytes_ += bytes;
  // Threads read the clock before taking the lock, so `now` may be older than the last report:
  // count it as that moment rather than as time running backwards.
  if (reported_ && now < last_report_) {
    now = last_report_;
  }
  if (reported_ && now - last_report_ < period_) {
    return;
  }
  reported_ = true;
  last_report_ = now;
  report_(total_bytes_);
}

}  // namespace gridftp::client
