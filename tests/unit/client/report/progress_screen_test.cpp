#include "client/report/progress_screen.hpp"

#include <catch2/catch.hpp>

using gridftp::client::Clock;
using gridftp::client::report::ProgressSnapshot;
using gridftp::client::report::render_progress;
using gridftp::client::report::TotalRow;
using gridftp::client::report::TransferRow;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TransferRow row(std::string name, std::uint64_t bytes, std::optional<std::uint64_t> size) {
  TransferRow r;
  r.name = std::move(name);
  r.bytes = bytes;
  r.size_bytes = size;
  r.bytes_per_second = 512.0 * 1024 * 1024;
  r.remaining = size ? std::optional<Clock::duration>(2s) : std::nullopt;
  r.streams = 4;
  return r;
}

ProgressSnapshot snapshot_of(std::vector<TransferRow> rows) {
  ProgressSnapshot s;
  s.active = std::move(rows);
  s.total.files_active = s.active.size();
  s.total.bytes = kGiB;
  s.total.size_bytes = 2 * kGiB;
  s.total.bytes_per_second = 512.0 * 1024 * 1024;
  s.total.remaining = 2s;
  s.total.elapsed = 2s;
  return s;
}

}  // namespace

TEST_CASE("render_progress shows bytes, size, percent, rate, ETA and streams", "[client][report]") {
  const auto lines = render_progress(snapshot_of({row("big.bin", kGiB, 2 * kGiB)}), 100, 8);
  REQUIRE(lines.size() == 2);
  const std::string details = "1.00 GiB / 2.00 GiB  50%  512 MiB/s  ETA 2s  4 streams";
  CHECK(lines[0].size() == 100);  // the name column is padded, so rows line up
  CHECK(lines[0].rfind("big.bin ", 0) == 0);
  CHECK(lines[0].substr(lines[0].size() - details.size()) == details);
  CHECK(lines[1] ==
        "total: 0 done, 1 active  1.00 GiB / 2.00 GiB  50%  512 MiB/s  ETA 2s  elapsed 2s");
}

TEST_CASE("render_progress leaves out size and ETA when the size is unknown", "[client][report]") {
  const auto lines = render_progress(snapshot_of({row("x", 1024, std::nullopt)}), 60, 8);
  CHECK(lines[0].find("1.00 KiB  512 MiB/s  4 streams") != std::string::npos);
  CHECK(lines[0].find("ETA") == std::string::npos);
}

TEST_CASE("render_progress keeps every line within the width", "[client][report]") {
  const auto width = static_cast<std::size_t>(GENERATE(1, 10, 40, 63, 66, 67, 80, 200));
  const auto lines = render_progress(
      snapshot_of({row(std::string(300, 'n') + ".bin", kGiB, 2 * kGiB), row("s", 0, 1)}), width, 8);
  REQUIRE(lines.size() == 3);
  for (const auto& line : lines) {
    CHECK(line.size() <= width);
  }
}

TEST_CASE("render_progress shortens long names from the front", "[client][report]") {
  const auto lines =
      render_progress(snapshot_of({row("averyveryverylongname.bin", kGiB, 2 * kGiB)}), 80, 8);
  CHECK(lines[0].rfind("...", 0) == 0);
  CHECK(lines[0].find("name.bin  1.00 GiB") != std::string::npos);
}

TEST_CASE("render_progress caps the file rows and counts the rest", "[client][report]") {
  std::vector<TransferRow> rows;
  for (int i = 0; i < 5; ++i) {
    rows.push_back(row("f" + std::to_string(i), 0, 10));
  }
  const auto lines = render_progress(snapshot_of(rows), 100, 2);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].rfind("f0", 0) == 0);
  CHECK(lines[1].rfind("f1", 0) == 0);
  CHECK(lines[2] == "... and 3 more");
  CHECK(lines[3].rfind("total: ", 0) == 0);
}

TEST_CASE("render_progress names failures in the total and marks a missing rate",
          "[client][report]") {
  auto snapshot = snapshot_of({row("a", 0, 10)});
  snapshot.active[0].bytes_per_second.reset();
  snapshot.active[0].remaining.reset();
  snapshot.total.files_done = 2;
  snapshot.total.files_failed = 1;
  const auto lines = render_progress(snapshot, 120, 8);
  CHECK(lines[0].find("- B/s  ETA -  4 streams") != std::string::npos);
  CHECK(lines[1].rfind("total: 2 done, 1 failed, 1 active", 0) == 0);
}
