#include "client/report/line_format.hpp"

#include <cstdio>

#include "client/report/human_units.hpp"

namespace gridftp::client::report {
namespace {

double seconds_of(Clock::duration elapsed) {
  return std::chrono::duration<double>(elapsed).count();
}

std::string summary_line(const FileStart& start, const FileEnd& end) {
  const auto route = start.source + " -> " + start.dest;
  if (end.result == FileResult::Skipped) {
    return "skipped " + route + ": up to date\n";
  }
  const double seconds = seconds_of(end.elapsed);
  std::string line =
      "copied " + route + ": " + format_bytes(end.bytes) + " in " + format_duration(end.elapsed);
  if (seconds > 0) {
    line += " (" + format_rate(static_cast<double>(end.bytes) / seconds) + ")";
  }
  return line + "\n";
}

// globus-url-copy -vb's line: decimal megabytes, as guc prints them.
std::string bytes_line(const FileEnd& end) {
  const double seconds = seconds_of(end.elapsed);
  const double megabytes_per_second =
      seconds > 0 ? static_cast<double>(end.bytes) / seconds / 1e6 : 0.0;
  char text[96];
  std::snprintf(text, sizeof text, "%12llu bytes %10.2f MB/sec avg\n",
                static_cast<unsigned long long>(end.bytes), megabytes_per_second);
  return text;
}

// After a UDPX transfer, what its engine saw (docs/UDPX.md §8).
std::string udpx_line(const NetworkFigures& udpx) {
  return "UDPX: " + protocol::udpx::describe(udpx) + "\n";
}

}  // namespace

std::string file_report_text(const FileStart& start, const FileEnd& end, LineStyle style) {
  if (style == LineStyle::Quiet || end.result == FileResult::Failed) {
    return {};
  }
  if (style == LineStyle::Summary) {
    return summary_line(start, end) + (end.udpx ? udpx_line(*end.udpx) : "");
  }
  std::string text = "Source: " + start.source + "\nDest:   " + start.dest + "\n";
  if (style == LineStyle::VerboseBytes && end.result == FileResult::Copied) {
    text += bytes_line(end);
    if (end.udpx) text += udpx_line(*end.udpx);
  }
  return text;
}

}  // namespace gridftp::client::report
