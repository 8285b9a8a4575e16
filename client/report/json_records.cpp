#include "client/report/json_records.hpp"

#include <cstdint>

#include "protocol/core/json.hpp"

namespace gridftp::client::report {
namespace {

double seconds_of(Clock::duration elapsed) {
  return std::chrono::duration<double>(elapsed).count();
}

double rate_of(std::uint64_t bytes, Clock::duration elapsed) {
  const double seconds = seconds_of(elapsed);
  return seconds > 0 ? static_cast<double>(bytes) / seconds : 0.0;
}

}  // namespace

std::string_view result_name(FileResult result) {
  switch (result) {
    case FileResult::Copied:
      return "copied";
    case FileResult::Skipped:
      return "skipped";
    case FileResult::Failed:
      return "failed";
  }
  return "failed";
}

std::string encode_file_record(const FileStart& start, const FileEnd& end) {
  JsonObjectWriter json;
  json.add("type", "file")
      .add("source", start.source)
      .add("dest", start.dest)
      .add("result", result_name(end.result))
      .add("bytes", end.bytes)
      .add("seconds", seconds_of(end.elapsed))
      .add("rate_bytes_per_second", rate_of(end.bytes, end.elapsed))
      .add("attempts", std::uint64_t{end.attempts})
      .add("streams", std::uint64_t{start.streams});
  if (end.result == FileResult::Failed) {
    json.add("error", end.error);
  }
  if (end.udpx) {
    json.add("network", "udpx");
    protocol::udpx::add_json_fields(json, *end.udpx);
  }
  return json.str();
}

std::string encode_summary(const RunSummary& summary) {
  JsonObjectWriter json;
  json.add("type", "summary")
      .add("files", std::uint64_t{summary.files})
      .add("failed", std::uint64_t{summary.failed})
      .add("skipped", std::uint64_t{summary.skipped})
      .add("bytes", summary.bytes)
      .add("seconds", seconds_of(summary.elapsed))
      .add("rate_bytes_per_second", summary.bytes_per_second());
  return json.str();
}

}  // namespace gridftp::client::report
