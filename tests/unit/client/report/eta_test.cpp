#include "client/report/eta.hpp"

#include <limits>

#include <catch2/catch.hpp>

using gridftp::client::Clock;
using gridftp::client::report::estimate_remaining;
using namespace std::chrono_literals;

TEST_CASE("estimate_remaining divides what is left by the rate", "[client][report]") {
  const auto left = estimate_remaining(250, 1250, 100.0);
  REQUIRE(left);
  CHECK(*left == Clock::duration(10s));
}

TEST_CASE("estimate_remaining is unknown without a size or a rate", "[client][report]") {
  CHECK_FALSE(estimate_remaining(10, std::nullopt, 100.0));
  CHECK_FALSE(estimate_remaining(10, 100, std::nullopt));
  CHECK_FALSE(estimate_remaining(10, 100, 0.0));
  CHECK_FALSE(estimate_remaining(10, 100, -5.0));
  CHECK_FALSE(estimate_remaining(10, 100, std::numeric_limits<double>::infinity()));
  CHECK_FALSE(estimate_remaining(0, 1'000'000'000'000, 1e-3));  // centuries: no estimate
}

TEST_CASE("estimate_remaining is zero once the size is reached or passed", "[client][report]") {
  CHECK(estimate_remaining(100, 100, std::nullopt) == Clock::duration::zero());
  CHECK(estimate_remaining(150, 100, 1.0) == Clock::duration::zero());
  CHECK(estimate_remaining(0, 0, std::nullopt) == Clock::duration::zero());
}
