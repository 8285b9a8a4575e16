// Turns the byte counts of a transfer's data threads into a few cumulative progress reports a
// second (TransferOptions::on_progress), so a reporter is never called per block. Thread-safe:
// MODE E streams add from their own threads. Time is an argument, so tests drive it.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

#include "client/clock.hpp"

namespace gridftp::client {

class ProgressTicker {
 public:
  using Report = std::function<void(std::uint64_t bytes_so_far)>;
  // An empty `report` makes add() a no-op.
  explicit ProgressTicker(Report report, Clock::duration period = std::chrono::milliseconds(200));

  // Counts `bytes` more; reports the running total when `period` has passed since the last
  // report (the first add reports at once). The report runs under the ticker's lock, so reports
  // arrive in order and never overlap.
  void add(std::uint64_t bytes, Clock::time_point now);

 private:
  Report report_;
  Clock::duration period_;
  std::mutex mutex_;  // guards below
  std::uint64_t total_bytes_ = 0;
  bool reported_ = false;
  Clock::time_point last_report_{};
};

}  // namespace gridftp::client
