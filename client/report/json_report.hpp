// gridcp --json as an observer: one JSON line per finished file as it finishes, and the summary
// line from finish_run(). With --json these lines are all that goes to stdout. Thread-safe.
#pragma once

#include <functional>
#include <mutex>
#include <string_view>

#include "client/report/file_start_book.hpp"
#include "client/report/run_summary.hpp"
#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

class JsonReport : public TransferObserver {
 public:
  // `write` gets one complete line, newline included.
  using Writer = std::function<void(std::string_view line)>;
  JsonReport(Writer write, Clock::time_point run_start);

  void file_started(const FileStart& start) override;
  void file_progress(std::size_t id, std::uint64_t bytes_so_far) override;
  void file_finished(const FileEnd& end) override;
  // Writes the summary line; the run's seconds run from `run_start` to `now`.
  void finish_run(Clock::time_point now);

 private:
  FileStartBook starts_;
  Clock::time_point run_start_;
  std::mutex mutex_;  // guards summary_ and orders the lines
  RunSummary summary_;
  Writer write_;
};

}  // namespace gridftp::client::report
