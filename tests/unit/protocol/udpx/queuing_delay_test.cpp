// The UDPX receiver's queuing-delay estimate (docs/UDPX.md §2.2): clock offset and skew cancel,
// a real queue shows, and the sender's 32-bit µs clock may wrap.
#include "protocol/udpx/queuing_delay.hpp"

#include <cmath>
#include <cstdint>

#include <catch2/catch.hpp>

using gridftp::protocol::udpx::QueuingDelayEstimator;

namespace {
// A sender whose clock runs `offset` µs ahead of ours and drifts `skew` s/s; packets every
// `gap` µs for `seconds`, with the one-way delay `base` plus what `queue(t)` adds.
template <typename Queue, typename Check>
void run(QueuingDelayEstimator& estimator, double skew, std::int64_t offset, int seconds,
         Queue queue, Check check, std::int64_t gap = 1000) {
  constexpr std::int64_t kBase = 25'000;
  for (std::int64_t sent = 0; sent < seconds * 1'000'000LL; sent += gap) {
    const auto sender_clock =
        static_cast<std::int64_t>(std::llround(static_cast<double>(sent) * (1 + skew))) + offset;
    const auto received = sent + kBase + queue(sent);
    const auto q = estimator.on_packet(received, static_cast<std::uint32_t>(sender_clock));
    check(sent, q);
  }
}
}  // namespace

TEST_CASE("No queue reads as no queuing delay whatever the clocks' offset", "[udpx]") {
  QueuingDelayEstimator estimator;
  std::int64_t worst = 0;
  run(
      estimator, 0, 987'654'321, 10, [](std::int64_t) { return 0; },
      [&](std::int64_t, std::int64_t q) { worst = std::max(worst, q); });
  REQUIRE(worst == 0);
}

TEST_CASE("A 100 ppm skew is taken out instead of read as a growing queue", "[udpx]") {
  QueuingDelayEstimator estimator;
  std::int64_t worst_after_fit = 0;
  run(
      estimator, -100e-6, 5'000, 64, [](std::int64_t) { return 0; },
      [&](std::int64_t t, std::int64_t q) {
        if (t > 3'000'000) worst_after_fit = std::max(worst_after_fit, q);
      });
  // Uncorrected, the delay would have grown by 6.4 ms over the run.
  REQUIRE(worst_after_fit <= 150);
  REQUIRE(std::fabs(estimator.skew() - 100e-6) < 5e-6);
}

TEST_CASE("A queue that builds shows as its own delay, with skew", "[udpx]") {
  QueuingDelayEstimator estimator;
  std::int64_t during = 0;
  std::int64_t after = 0;
  // 5 ms of queue from second 20 to 21; the clocks drift 50 ppm.
  const auto queue = [](std::int64_t t) -> std::int64_t {
    return t >= 20'000'000 && t < 21'000'000 ? 5'000 : 0;
  };
  run(estimator, 50e-6, -3'000'000, 30, queue, [&](std::int64_t t, std::int64_t q) {
    if (t >= 20'500'000 && t < 21'000'000) during = std::max(during, q);
    if (t >= 22'000'000) after = std::max(after, q);
  });
  REQUIRE(during >= 4'850);
  REQUIRE(during <= 5'150);
  REQUIRE(after <= 150);
}

TEST_CASE("The sender's 32-bit microsecond clock may wrap mid-transfer", "[udpx]") {
  QueuingDelayEstimator estimator;
  std::int64_t worst = 0;
  // Starts 2 s before the 2^32 µs wrap.
  run(
      estimator, 0, (1LL << 32) - 2'000'000, 5, [](std::int64_t) { return 0; },
      [&](std::int64_t, std::int64_t q) { worst = std::max(worst, q); });
  REQUIRE(worst == 0);
}
