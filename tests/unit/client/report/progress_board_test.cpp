#include "client/report/progress_board.hpp"

#include <catch2/catch.hpp>

#include "client/report/progress_screen.hpp"

using gridftp::client::Clock;
using gridftp::client::FileEnd;
using gridftp::client::FileResult;
using gridftp::client::FileShape;
using gridftp::client::FileStart;
using gridftp::client::report::display_name;
using gridftp::client::report::ProgressBoard;
using gridftp::client::report::render_progress;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0{};

FileStart file(std::size_t id, std::string source, std::optional<std::uint64_t> size,
               unsigned streams = 1) {
  return FileStart{id, std::move(source), "/tmp/out", size, streams};
}

}  // namespace

TEST_CASE("ProgressBoard shows files in the order they started", "[client][report]") {
  ProgressBoard board(kT0);
  board.start(file(7, "ftp://h/b.bin", 100), kT0);
  board.start(file(3, "ftp://h/a.bin", 100), kT0 + 1s);
  const auto snapshot = board.snapshot(kT0 + 2s);
  REQUIRE(snapshot.active.size() == 2);
  CHECK(snapshot.active[0].name == "b.bin");
  CHECK(snapshot.active[1].name == "a.bin");
  CHECK(snapshot.total.files_active == 2);
}

TEST_CASE("ProgressBoard gives each file its bytes, rate, ETA and streams", "[client][report]") {
  ProgressBoard board(kT0);
  board.start(file(1, "ftp://h/data/big.bin", 1000, 4), kT0);
  board.progress(1, 200, kT0 + 1s);
  board.progress(1, 400, kT0 + 2s);
  const auto snapshot = board.snapshot(kT0 + 2s);
  REQUIRE(snapshot.active.size() == 1);
  const auto& row = snapshot.active[0];
  CHECK(row.bytes == 400);
  CHECK(row.size_bytes == 1000);
  CHECK(row.streams == 4);
  REQUIRE(row.bytes_per_second);
  CHECK(*row.bytes_per_second == Approx(200.0));
  REQUIRE(row.remaining);
  CHECK(*row.remaining == Clock::duration(3s));
}

TEST_CASE("ProgressBoard totals finished and active files", "[client][report]") {
  ProgressBoard board(kT0);
  board.start(file(1, "a", 100), kT0);
  board.start(file(2, "b", 300), kT0);
  board.start(file(3, "c", 50), kT0);
  board.progress(1, 100, kT0 + 1s);
  board.finish(FileEnd{1, FileResult::Copied, 100, 1s, 1, {}, std::nullopt}, kT0 + 1s);
  board.finish(FileEnd{3, FileResult::Failed, 10, 1s, 1, "boom", std::nullopt}, kT0 + 1s);
  board.progress(2, 100, kT0 + 2s);
  const auto total = board.snapshot(kT0 + 2s).total;
  CHECK(total.files_done == 1);
  CHECK(total.files_failed == 1);
  CHECK(total.files_active == 1);
  CHECK(total.bytes == 210);  // 100 + 10 finished, 100 active
  CHECK(total.size_bytes == 410);
  CHECK(total.elapsed == Clock::duration(2s));
  REQUIRE(total.bytes_per_second);
  CHECK(*total.bytes_per_second == Approx(105.0));
  CHECK(total.remaining);
}

TEST_CASE("ProgressBoard's total size is unknown while a file's size is", "[client][report]") {
  ProgressBoard board(kT0);
  board.start(file(1, "a", 100), kT0);
  board.start(file(2, "b", std::nullopt), kT0);
  const auto snapshot = board.snapshot(kT0 + 1s);
  CHECK_FALSE(snapshot.total.size_bytes);
  CHECK_FALSE(snapshot.total.remaining);
  CHECK_FALSE(snapshot.active[1].remaining);
}

TEST_CASE("ProgressBoard ignores progress for files it does not know", "[client][report]") {
  ProgressBoard board(kT0);
  board.start(file(1, "a", 100), kT0);
  board.finish(FileEnd{1, FileResult::Copied, 100, 1s, 1, {}, std::nullopt}, kT0 + 1s);
  board.progress(1, 100, kT0 + 2s);  // a late report from a data thread
  board.progress(9, 100, kT0 + 2s);
  const auto snapshot = board.snapshot(kT0 + 2s);
  CHECK(snapshot.active.empty());
  CHECK(snapshot.total.bytes == 100);
}

TEST_CASE("ProgressBoard takes a size learnt after the start, for percent and ETA",
          "[client][report]") {
  // A single-file -p 4 get: the planner knew no size; the transfer's SIZE reply tells it.
  ProgressBoard board(kT0);
  board.start(file(1, "ftp://h/big.bin", std::nullopt, 4), kT0);
  board.progress(1, 200, kT0 + 1s);
  CHECK_FALSE(board.snapshot(kT0 + 1s).active[0].size_bytes);
  board.reshape(1, FileShape{1000, 4});
  board.progress(1, 400, kT0 + 2s);
  const auto snapshot = board.snapshot(kT0 + 2s);
  const auto& row = snapshot.active[0];
  CHECK(row.size_bytes == 1000);
  CHECK(row.streams == 4);
  REQUIRE(row.remaining);
  CHECK(*row.remaining == Clock::duration(3s));
  CHECK(snapshot.total.size_bytes == 1000);
  CHECK(snapshot.total.remaining);
  const auto lines = render_progress(snapshot, 120, 8);
  CHECK(lines[0].find("400 B / 1000 B  40%") != std::string::npos);
  CHECK(lines[0].find("ETA 3s") != std::string::npos);
}

TEST_CASE("ProgressBoard keeps a known size when a shape brings only the streams",
          "[client][report]") {
  // -p 4 against a server without MODE E runs one stream; the size stays as it was.
  ProgressBoard board(kT0);
  board.start(file(1, "ftp://h/big.bin", 1000, 4), kT0);
  board.reshape(1, FileShape{std::nullopt, 1});
  board.reshape(9, FileShape{5, 2});  // a file that is not (or no longer) in flight
  const auto snapshot = board.snapshot(kT0 + 1s);
  REQUIRE(snapshot.active.size() == 1);
  CHECK(snapshot.active[0].size_bytes == 1000);
  CHECK(snapshot.active[0].streams == 1);
  CHECK(render_progress(snapshot, 120, 8)[0].find("1 stream") != std::string::npos);
}

TEST_CASE("display_name takes the last path component", "[client][report]") {
  CHECK(display_name("ftp://h:21/data/big.bin") == "big.bin");
  CHECK(display_name("/tmp/x") == "x");
  CHECK(display_name("plain") == "plain");
  CHECK(display_name("ftp://h/dir/sub/") == "sub/");
  CHECK(display_name("/") == "/");
  CHECK(display_name("") == "");
}
