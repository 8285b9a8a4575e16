#include "client/report/line_report.hpp"

namespace gridftp::client::report {

LineReport::LineReport(LineStyle style, Writer write) : style_(style), write_(std::move(write)) {}

void LineReport::file_started(const FileStart& start) { starts_.remember(start); }

void LineReport::file_progress(std::size_t, std::uint64_t) {}

void LineReport::file_finished(const FileEnd& end) {
  const auto text = file_report_text(starts_.take(end.id), end, style_);
  if (text.empty()) {
    return;
  }
  std::lock_guard lock(write_mutex_);
  write_(text);
}

}  // namespace gridftp::client::report
