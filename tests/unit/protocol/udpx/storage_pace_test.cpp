// Receiver storage adaptation (docs/UDPX.md §2.4): the cap appears when storage is busy most of
// an interval, follows the storage's measured pace, and goes when storage is mostly idle.
#include "protocol/udpx/storage_pace.hpp"

#include <catch2/catch.hpp>

using gridftp::protocol::udpx::StoragePace;

TEST_CASE("Fast storage sets no cap", "[udpx]") {
  StoragePace pace;
  pace.on_write(1'000'000, 1'000);  // 1 MB in 1 ms of a 10 ms interval: 10 % busy
  const auto report = pace.end_interval(10'000);
  CHECK(report.rate == 100'000'000);
  CHECK(report.cap == 0);
  CHECK_FALSE(pace.limiting());
}

TEST_CASE("Slow storage caps the sender below its own pace, with headroom", "[udpx]") {
  StoragePace pace;
  pace.on_write(100'000, 9'000);  // 100 kB took 9 ms of 10: 11.1 MB/s while busy
  auto report = pace.end_interval(10'000);
  CHECK(report.rate == 10'000'000);
  CHECK(pace.limiting());
  CHECK(report.cap == static_cast<std::uint64_t>(StoragePace::kHeadroom * 100'000 / 0.009));
  // Storage gets twice as fast: the cap follows, smoothed.
  for (int i = 0; i < 20; ++i) {
    pace.on_write(100'000, 4'500);
    report = pace.end_interval(7'000);
  }
  CHECK(pace.limiting());
  CHECK(static_cast<double>(report.cap) > 0.95 * StoragePace::kHeadroom * 100'000 / 0.0045);
  // Busy between the two shares: the cap stays (no flapping).
  pace.on_write(100'000, 4'000);
  CHECK(pace.end_interval(10'000).cap > 0);
  // Mostly idle: released.
  pace.on_write(100'000, 1'000);
  CHECK(pace.end_interval(10'000).cap == 0);
  CHECK_FALSE(pace.limiting());
}

TEST_CASE("An interval without writes keeps the storage verdict", "[udpx]") {
  StoragePace pace;
  pace.on_write(100'000, 9'000);
  REQUIRE(pace.end_interval(10'000).cap > 0);
  const auto quiet = pace.end_interval(10'000);
  CHECK(quiet.rate == 0);
  CHECK(quiet.cap > 0);
  CHECK(pace.end_interval(0).cap == 0);
}
