// LineReport, JsonReport and ObserverList fed from several threads at once, as the engine's -cc
// workers will: every file's text arrives whole, once.
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "client/report/json_report.hpp"
#include "client/report/line_report.hpp"
#include "client/report/observer_list.hpp"

using gridftp::client::Clock;
using gridftp::client::FileEnd;
using gridftp::client::FileResult;
using gridftp::client::FileStart;
using gridftp::client::report::JsonReport;
using gridftp::client::report::LineReport;
using gridftp::client::report::LineStyle;
using gridftp::client::report::ObserverList;
using namespace std::chrono_literals;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

void run_files(gridftp::client::TransferObserver& observer, int threads, int files_each) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&observer, t, files_each] {
      for (int i = 0; i < files_each; ++i) {
        const auto id = static_cast<std::size_t>(t * files_each + i + 1);
        observer.file_started(FileStart{id, "ftp://h/f" + std::to_string(id), "/tmp/o", 10, 1});
        observer.file_progress(id, 5);
        observer.file_finished(FileEnd{id, FileResult::Copied, 10, 1s, 1, {}, std::nullopt});
      }
    });
  }
  for (auto& worker : workers) {
    worker.join();
  }
}

}  // namespace

TEST_CASE("LineReport and JsonReport take files from several threads", "[client][report]") {
  std::mutex mutex;
  std::string lines;
  std::string json;
  LineReport line_report(LineStyle::Verbose, [&](std::string_view text) {
    std::lock_guard lock(mutex);
    lines += text;
  });
  JsonReport json_report(
      [&](std::string_view text) {
        std::lock_guard lock(mutex);
        json += text;
      },
      Clock::time_point{});
  ObserverList list;
  list.add(line_report);
  list.add(json_report);
  run_files(list, 4, 50);
  json_report.finish_run(Clock::time_point{} + 10s);

  CHECK(count_of(lines, "Source: ftp://h/f") == 200);
  CHECK(count_of(lines, "Source: ftp://h/f17\nDest:   /tmp/o\n") == 1);  // never torn apart
  CHECK(count_of(json, "\n") == 201);
  CHECK(count_of(json, R"({"type":"file","source":"ftp://h/f)") == 200);
  CHECK(json.find(R"({"type":"summary","files":200,"failed":0,"skipped":0,"bytes":2000,)"
                  R"("seconds":10,"rate_bytes_per_second":200})") != std::string::npos);
}

TEST_CASE("JsonReport names a file it was never told about by its id alone", "[client][report]") {
  std::string json;
  JsonReport report([&](std::string_view text) { json += text; }, Clock::time_point{});
  report.file_finished(FileEnd{9, FileResult::Failed, 0, 0s, 1, "lost", std::nullopt});
  CHECK(json.find(R"("source":"","dest":"","result":"failed")") != std::string::npos);
}
