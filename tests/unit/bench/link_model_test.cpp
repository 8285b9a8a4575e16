// The WAN emulator's link model (bench/wanem/link_model): serialisation at the configured rate,
// drop-tail at the queue limit, seeded loss at the configured probability, constant delay.
#include "bench/wanem/link_model.hpp"

#include <cmath>

#include <catch2/catch.hpp>

using gridftp::wanem::LinkModel;
using gridftp::wanem::LinkSettings;
using gridftp::wanem::Nanoseconds;
using gridftp::wanem::Xoshiro256;

namespace {
constexpr Nanoseconds kMs = 1'000'000;
}

TEST_CASE("Without a bottleneck a packet arrives exactly one delay later", "[wanem]") {
  LinkSettings settings;
  settings.one_way_delay = 25 * kMs;
  LinkModel link(settings);
  REQUIRE(link.admit(1000, 1500) == 1000 + 25 * kMs);
  REQUIRE(link.admit(1000, 40) == 1000 + 25 * kMs);
  REQUIRE(link.counters().packets_delivered == 2);
  REQUIRE(link.counters().bytes_delivered == 1540);
}

TEST_CASE("The bottleneck spaces packets by their serialisation time", "[wanem]") {
  LinkSettings settings;
  settings.rate_bits_per_second = 12'000'000;  // 1500 B take 1 ms
  settings.one_way_delay = 10 * kMs;
  LinkModel link(settings);
  // A burst of three at t=0 leaves at 1, 2 and 3 ms (plus the delay).
  REQUIRE(link.admit(0, 1500) == 11 * kMs);
  REQUIRE(link.admit(0, 1500) == 12 * kMs);
  REQUIRE(link.admit(0, 1500) == 13 * kMs);
  REQUIRE(link.queue_delay(0) == 3 * kMs);
  REQUIRE(link.queue_delay(2 * kMs) == 1 * kMs);
  // An idle link starts afresh: no credit for the gap.
  REQUIRE(link.admit(100 * kMs, 1500) == 111 * kMs);
}

TEST_CASE("A full queue drops the arriving packet and keeps the others' times", "[wanem]") {
  LinkSettings settings;
  settings.rate_bits_per_second = 12'000'000;
  settings.queue_bytes = 3000;  // two 1500 B packets
  LinkModel link(settings);
  REQUIRE(link.admit(0, 1500).has_value());
  REQUIRE(link.admit(0, 1500).has_value());
  REQUIRE_FALSE(link.admit(0, 1500).has_value());
  REQUIRE(link.counters().queue_drops == 1);
  // After one packet's worth of draining there is room again, behind the backlog.
  REQUIRE(link.admit(1 * kMs, 1500) == 3 * kMs);
}

TEST_CASE("Random loss matches its probability and repeats with the seed", "[wanem]") {
  LinkSettings settings;
  settings.loss = 0.05;
  settings.seed = 42;
  LinkModel first(settings);
  LinkModel second(settings);
  constexpr int kPackets = 200'000;
  int differences = 0;
  for (int i = 0; i < kPackets; ++i) {
    if (first.admit(i, 1000).has_value() != second.admit(i, 1000).has_value()) ++differences;
  }
  REQUIRE(differences == 0);
  const double measured = static_cast<double>(first.counters().random_drops) / kPackets;
  const double sigma = std::sqrt(0.05 * 0.95 / kPackets);
  REQUIRE(std::fabs(measured - 0.05) < 4 * sigma);
  settings.seed = 43;
  LinkModel other(settings);
  for (int i = 0; i < 1000; ++i) (void)other.admit(i, 1000);
  LinkModel again(LinkSettings{0, 0, 1 << 20, 0.05, 42});
  for (int i = 0; i < 1000; ++i) (void)again.admit(i, 1000);
  REQUIRE(other.counters().random_drops != again.counters().random_drops);
}

TEST_CASE("A lost packet still used its share of the bottleneck", "[wanem]") {
  LinkSettings settings;
  settings.rate_bits_per_second = 12'000'000;
  settings.loss = 1.0;
  LinkModel link(settings);
  REQUIRE_FALSE(link.admit(0, 1500).has_value());
  REQUIRE(link.queue_delay(0) == 1 * kMs);
}

TEST_CASE("xoshiro256** gives values from 0 up to 1, spread over the range", "[wanem]") {
  Xoshiro256 random(7);
  double low = 1, high = 0, sum = 0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    const double u = random.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    low = std::min(low, u);
    high = std::max(high, u);
    sum += u;
  }
  REQUIRE(low < 0.001);
  REQUIRE(high > 0.999);
  REQUIRE(std::fabs(sum / kDraws - 0.5) < 0.01);
}
