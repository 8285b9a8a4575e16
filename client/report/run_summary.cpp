#include "client/report/run_summary.hpp"

namespace gridftp::client::report {

void RunSummary::add(const FileEnd& end) {
  ++files;
  failed += end.result == FileResult::Failed ? 1 : 0;
  skipped += end.result == FileResult::Skipped ? 1 : 0;
  bytes += end.bytes;
}

double RunSummary::bytes_per_second() const {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  return seconds > 0 ? static_cast<double>(bytes) / seconds : 0.0;
}

}  // namespace gridftp::client::report
