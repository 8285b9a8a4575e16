// What the live progress display knows: the files in flight (bytes, size, rate, streams) and the
// run's totals, fed with the observer's events. Pure: time is an argument and nothing is drawn
// here (progress_screen renders a snapshot). Not thread-safe; TerminalProgress locks around it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/clock.hpp"
#include "client/report/rate_estimator.hpp"
#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

struct TransferRow {
  std::string name;  // the source's last path component
  std::uint64_t bytes = 0;
  std::optional<std::uint64_t> size_bytes;
  std::optional<double> bytes_per_second;
  std::optional<Clock::duration> remaining;
  unsigned streams = 1;
};

struct TotalRow {
  std::size_t files_done = 0;  // copied or skipped
  std::size_t files_failed = 0;
  std::size_t files_active = 0;
  std::uint64_t bytes = 0;  // finished files plus the active files so far
  // Known only while every active file's size is known.
  std::optional<std::uint64_t> size_bytes;
  std::optional<double> bytes_per_second;
  std::optional<Clock::duration> remaining;  // for the files in flight; queued ones are unknown
  Clock::duration elapsed{};
};

struct ProgressSnapshot {
  std::vector<TransferRow> active;  // in the order the files started
  TotalRow total;
};

class ProgressBoard {
 public:
  // The run's clock starts at `run_start`, so the total's elapsed time covers connecting too.
  explicit ProgressBoard(Clock::time_point run_start,
                         Clock::duration rate_window = std::chrono::seconds(5));

  void start(const FileStart& start, Clock::time_point now);
  // Unknown ids (a file that already finished) are ignored.
  void progress(std::size_t id, std::uint64_t bytes_so_far, Clock::time_point now);
  // What the transfer learnt since start(): a size (kept when the shape has none) and the
  // streams it really runs. Unknown ids are ignored.
  void reshape(std::size_t id, const FileShape& shape);
  void finish(const FileEnd& end, Clock::time_point now);
  // Samples every rate at `now` (so a stalled transfer's rate falls) and returns the rows.
  ProgressSnapshot snapshot(Clock::time_point now);

 private:
  struct Active {
    std::size_t order = 0;
    FileStart start;
    std::uint64_t bytes = 0;
    RateEstimator rate;
  };

  std::uint64_t total_bytes() const;

  Clock::time_point run_start_;
  Clock::duration rate_window_;
  std::size_t next_order_ = 0;
  std::map<std::size_t, Active> active_;  // by file id
  std::size_t files_done_ = 0;
  std::size_t files_failed_ = 0;
  std::uint64_t finished_bytes_ = 0;
  RateEstimator total_rate_;
};

// The last path component of a URL or path ("ftp://h/a/b.bin" → "b.bin"; "dir/" → "dir/").
std::string display_name(const std::string& url);

}  // namespace gridftp::client::report
