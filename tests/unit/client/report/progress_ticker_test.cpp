#include "client/report/progress_ticker.hpp"

#include <thread>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::client::Clock;
using gridftp::client::ProgressTicker;
using namespace std::chrono_literals;

TEST_CASE("ProgressTicker reports at once, then at most once a period", "[client]") {
  std::vector<std::uint64_t> reports;
  ProgressTicker ticker([&](std::uint64_t bytes) { reports.push_back(bytes); }, 200ms);
  const Clock::time_point t0{};
  ticker.add(10, t0);
  ticker.add(10, t0 + 100ms);
  ticker.add(10, t0 + 199ms);
  ticker.add(10, t0 + 200ms);
  ticker.add(5, t0 + 250ms);
  ticker.add(5, t0 + 400ms);
  CHECK(reports == std::vector<std::uint64_t>{10, 40, 50});
}

TEST_CASE("ProgressTicker without a report does nothing", "[client]") {
  ProgressTicker ticker(nullptr);
  ticker.add(10, Clock::time_point{});
}

TEST_CASE("ProgressTicker counts every byte added from several threads", "[client]") {
  std::uint64_t last = 0;
  std::size_t calls = 0;
  ProgressTicker ticker(
      [&](std::uint64_t bytes) {
        CHECK(bytes >= last);  // reports never overlap and never go backwards
        last = bytes;
        ++calls;
      },
      0ms);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&ticker] {
      for (int i = 0; i < 1000; ++i) {
        ticker.add(3, Clock::now());
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  CHECK(last == 4 * 1000 * 3);
  CHECK(calls == 4000);
}
