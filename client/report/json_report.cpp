#include "client/report/json_report.hpp"

#include "client/report/json_records.hpp"

namespace gridftp::client::report {

JsonReport::JsonReport(Writer write, Clock::time_point run_start)
    : run_start_(run_start), write_(std::move(write)) {}

void JsonReport::file_started(const FileStart& start) { starts_.remember(start); }

void JsonReport::file_progress(std::size_t, std::uint64_t) {}

void JsonReport::file_finished(const FileEnd& end) {
  const auto line = encode_file_record(starts_.take(end.id), end) + '\n';
  std::lock_guard lock(mutex_);
  summary_.add(end);
  write_(line);
}

void JsonReport::finish_run(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  summary_.elapsed = now - run_start_;
  write_(encode_summary(summary_) + '\n');
}

}  // namespace gridftp::client::report
