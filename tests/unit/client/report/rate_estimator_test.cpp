#include "client/report/rate_estimator.hpp"

#include <catch2/catch.hpp>

using gridftp::client::Clock;
using gridftp::client::report::RateEstimator;
using namespace std::chrono_literals;

namespace {
const Clock::time_point kT0{};
}

TEST_CASE("RateEstimator has no rate before two samples apart in time", "[client][report]") {
  RateEstimator rate;
  CHECK_FALSE(rate.bytes_per_second());
  rate.add(kT0, 0);
  CHECK_FALSE(rate.bytes_per_second());
  rate.add(kT0, 100);  // same instant: no time to divide by
  CHECK_FALSE(rate.bytes_per_second());
}

TEST_CASE("RateEstimator divides bytes by time over the samples", "[client][report]") {
  RateEstimator rate(10s);
  rate.add(kT0, 0);
  rate.add(kT0 + 1s, 1000);
  rate.add(kT0 + 2s, 3000);
  REQUIRE(rate.bytes_per_second());
  CHECK(*rate.bytes_per_second() == Approx(1500.0));
}

TEST_CASE("RateEstimator forgets what lies before its window", "[client][report]") {
  RateEstimator rate(2s);
  rate.add(kT0, 0);
  rate.add(kT0 + 1s, 10'000);  // a fast start
  for (int second = 2; second <= 10; ++second) {
    rate.add(kT0 + std::chrono::seconds(second), 10'000 + 100 * std::uint64_t(second - 1));
  }
  REQUIRE(rate.bytes_per_second());
  CHECK(*rate.bytes_per_second() == Approx(100.0));
}

TEST_CASE("RateEstimator falls to zero for a stalled transfer", "[client][report]") {
  RateEstimator rate(3s);
  rate.add(kT0, 0);
  rate.add(kT0 + 1s, 5000);
  for (int second = 2; second <= 6; ++second) {
    rate.add(kT0 + std::chrono::seconds(second), 5000);
  }
  REQUIRE(rate.bytes_per_second());
  CHECK(*rate.bytes_per_second() == Approx(0.0));
}

TEST_CASE("RateEstimator starts afresh when the count goes down", "[client][report]") {
  RateEstimator rate(10s);
  rate.add(kT0, 0);
  rate.add(kT0 + 1s, 1'000'000);
  rate.add(kT0 + 2s, 10);  // a restarted file
  CHECK_FALSE(rate.bytes_per_second());
  rate.add(kT0 + 3s, 110);
  REQUIRE(rate.bytes_per_second());
  CHECK(*rate.bytes_per_second() == Approx(100.0));
}

TEST_CASE("RateEstimator stays bounded when fed very often", "[client][report]") {
  RateEstimator rate(10s);
  for (int ms = 0; ms <= 10'000; ++ms) {
    rate.add(kT0 + std::chrono::milliseconds(ms), std::uint64_t(ms) * 1000);
  }
  REQUIRE(rate.bytes_per_second());
  CHECK(*rate.bytes_per_second() == Approx(1'000'000.0));
}
