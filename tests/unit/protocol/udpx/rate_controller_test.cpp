// The UDPX sender's rate law (docs/UDPX.md §2.3) against a fluid model of one bottleneck:
// it fills the link and holds a small queue, flows share by weight (also when one starts into
// the other's full queue), random loss leaves the rate alone, loss that grows with the rate cuts
// it, and the fixed/low policies and caps hold.
#include "protocol/udpx/rate_controller.hpp"

#include <cmath>
#include <deque>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::protocol::udpx::Policy;
using gridftp::protocol::udpx::RateController;
using gridftp::protocol::udpx::RateSample;
using gridftp::protocol::udpx::RateSettings;

namespace {

constexpr double kStep = 0.01;  // one FEEDBACK every 10 ms
constexpr double kBlock = 1404;

// A bottleneck of `capacity` bytes/s with a queue (drop-free, or drop-tail past `queue_limit`
// bytes; with `policer`, no queue and the excess dropped), propagation RTT `rtt`, random loss
// `loss(t)` on top. Flow i starts at `starts[i]` (0 when not given) and, as the receiver's
// estimator does (§2.2), measures the queue from the lowest delay it has seen since it started:
// a flow that starts into a standing queue takes that queue for propagation delay.
struct Link {
  double capacity = 12.5e6;
  double rtt = 0.05;
  bool policer = false;
  double queue_limit = 0;  // bytes; 0: unlimited
  double queue_bytes = 0;
  std::vector<double> starts;
  std::vector<double> lowest_queue_seen;
  // Each report reaches its sender one RTT after the bottleneck saw the traffic it describes.
  struct Report {
    double due;
    double rtt;
    RateSample sample;
  };
  std::vector<std::deque<Report>> in_flight;
  std::uint64_t random_state = 12345;

  double uniform() {
    random_state = random_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(random_state >> 11) * 0x1.0p-53;
  }
  bool started(std::size_t flow, double t) const {
    return flow >= starts.size() || t >= starts[flow];
  }
};

// Runs the controllers for `seconds` from `start`; `observe(t, rates, queue_delay)` each step
// (a flow not started yet shows rate 0).
template <typename Loss, typename Observe>
void simulate(Link& link, std::vector<RateController>& flows, double start, double seconds,
              Loss loss, Observe observe) {
  link.lowest_queue_seen.resize(flows.size(), HUGE_VAL);
  link.in_flight.resize(flows.size());
  for (double t = start; t < start + seconds; t += kStep) {
    double total = 0;
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (link.started(i, t)) total += flows[i].rate();
    double congestion_loss = 0;
    if (link.policer) {
      congestion_loss = total > link.capacity ? (total - link.capacity) / total : 0;
    } else {
      link.queue_bytes = std::max(0.0, link.queue_bytes + (total - link.capacity) * kStep);
      if (link.queue_limit > 0 && link.queue_bytes > link.queue_limit) {
        congestion_loss = (link.queue_bytes - link.queue_limit) / (total * kStep);
        link.queue_bytes = link.queue_limit;
      }
    }
    const double queue_delay = link.queue_bytes / link.capacity;
    const double share = total > link.capacity ? link.capacity / total : 1.0;
    std::vector<double> rates;
    for (std::size_t i = 0; i < flows.size(); ++i) {
      auto& flow = flows[i];
      if (!link.started(i, t)) {
        rates.push_back(0);
        continue;
      }
      auto& lowest = link.lowest_queue_seen[i];
      lowest = std::min(lowest, queue_delay);
      RateSample sample;
      sample.interval = kStep;
      sample.queue_delay_min = queue_delay - lowest;
      sample.delivery_rate = flow.rate() * share;
      const double sent = flow.rate() * kStep / kBlock;
      sample.packets = static_cast<std::uint64_t>(sent);
      const double p = congestion_loss + loss(t) * (1 - congestion_loss);
      std::uint64_t lost = 0;
      for (std::uint64_t packet = 0; packet < sample.packets; ++packet)
        if (link.uniform() < p) ++lost;
      sample.lost = lost;
      sample.sending_rate = flow.rate();
      const double rtt = link.rtt + queue_delay;
      auto& pending = link.in_flight[i];
      pending.push_back({t + rtt, rtt, sample});
      while (!pending.empty() && pending.front().due <= t + 1e-9) {
        auto report = pending.front();
        report.sample.now = t;
        flow.on_rtt_sample(report.rtt);
        flow.on_feedback(report.sample);
        pending.pop_front();
      }
      rates.push_back(flow.rate());
    }
    observe(t, rates, queue_delay);
  }
}

RateSettings settings(Policy policy, double target = 125e6) {
  RateSettings s;
  s.policy = policy;
  s.target = target;
  return s;
}

double no_loss(double) { return 0; }

}  // namespace

TEST_CASE("One flow fills the link and holds a queue near tau0 + alpha/C", "[udpx]") {
  Link link;
  std::vector<RateController> flows{RateController(settings(Policy::Fair))};
  double rate_sum = 0, delay_sum = 0;
  int samples = 0;
  simulate(link, flows, 0, 30, no_loss, [&](double t, const std::vector<double>& r, double q) {
    if (t < 20) return;
    rate_sum += r[0];
    delay_sum += q;
    ++samples;
  });
  const double rate = rate_sum / samples;
  const double delay = delay_sum / samples;
  REQUIRE(rate == Approx(link.capacity).epsilon(0.05));
  // Equilibrium: 3 ms + 32 KiB / 12.5 MB/s = 5.6 ms.
  REQUIRE(delay > 0.003);
  REQUIRE(delay < 0.009);
}

TEST_CASE("Startup doubles the rate each RTT from target/32", "[udpx]") {
  RateController flow(settings(Policy::Fair));
  REQUIRE(flow.rate() == Approx(125e6 / 32));
  flow.on_rtt_sample(0.1);
  RateSample sample;
  sample.interval = 0.1;
  sample.now = 0.1;
  sample.delivery_rate = flow.rate();
  flow.on_feedback(sample);
  REQUIRE(flow.rate() == Approx(2 * 125e6 / 32));
  REQUIRE(flow.phase() == RateController::Phase::Startup);
}

TEST_CASE("A start rate from the last transfer fills a long path sooner without overflowing",
          "[udpx]") {
  // 300 Mb/s at 300 ms with a one-BDP drop-tail queue; the last transfer carried 280 Mb/s.
  const auto first_two_seconds = [](double start_rate, double& dropped_bytes) {
    Link link;
    link.capacity = 37.5e6;
    link.rtt = 0.3;
    link.queue_limit = link.capacity * link.rtt;
    auto chosen = settings(Policy::Fair, 125e6);
    chosen.start_rate = start_rate;
    std::vector<RateController> flows{RateController(chosen)};
    double delivered = 0;
    dropped_bytes = 0;
    simulate(link, flows, 0, 2, no_loss, [&](double, const std::vector<double>& r, double) {
      delivered += std::min(r[0], link.capacity) * kStep;
      const double excess = link.queue_bytes + (r[0] - link.capacity) * kStep - link.queue_limit;
      if (excess > 0) dropped_bytes += excess;
    });
    return delivered;
  };
  double dropped_cold = 0, dropped_hinted = 0;
  const double cold = first_two_seconds(0, dropped_cold);
  const double hinted = first_two_seconds(35e6, dropped_hinted);
  // Cold Startup climbs from target/32 for four round trips; the hinted one starts near the link.
  REQUIRE(hinted > 1.3 * cold);
  REQUIRE(hinted > 0.8 * 37.5e6 * 2);
  REQUIRE(dropped_hinted == 0);
  REQUIRE(RateController(RateSettings{.target = 125e6,
                                      .minimum = 0,
                                      .policy = Policy::Fair,
                                      .alpha_bytes = 32 * 1024,
                                      .target_delay = 0.003,
                                      .gain = 0.5,
                                      .packet_bytes = 1452,
                                      .start_rate = 35e6})
              .rate() == Approx(35e6));
}

TEST_CASE("Two fair flows share evenly, and high against fair takes two thirds", "[udpx]") {
  for (const auto& [first, expected_ratio] : {std::pair{Policy::Fair, 1.0}, {Policy::High, 2.0}}) {
    Link link;
    std::vector<RateController> flows{RateController(settings(first)),
                                      RateController(settings(Policy::Fair))};
    double a = 0, b = 0;
    simulate(link, flows, 0, 60, no_loss, [&](double t, const std::vector<double>& r, double) {
      if (t < 40) return;
      a += r[0];
      b += r[1];
    });
    INFO("policy " << static_cast<int>(first));
    REQUIRE(a / b == Approx(expected_ratio).epsilon(0.1));
    REQUIRE((a + b) / (20 / kStep) == Approx(link.capacity).epsilon(0.05));
  }
}

TEST_CASE("A fair flow that starts into another's queue still gets an even share", "[udpx]") {
  // The interop fairness run: 100 Mb/s, 50 ms, a drop-tail queue of one BDP, the second flow
  // starting while the first one's Startup has the queue full.
  for (const double second_start :
       {0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0}) {
    Link link;
    link.queue_limit = link.capacity * link.rtt;
    link.starts = {0, second_start};
    std::vector<RateController> flows{RateController(settings(Policy::Fair)),
                                      RateController(settings(Policy::Fair))};
    double a = 0, b = 0;
    simulate(link, flows, 0, 20, no_loss, [&](double t, const std::vector<double>& r, double) {
      if (t < second_start + 1.5 || t > second_start + 9.5) return;  // past flow 2's Startup
      a += r[0];
      b += r[1];
    });
    INFO("second flow starts at " << second_start << " s; rates " << a << " " << b);
    REQUIRE(std::min(a, b) / std::max(a, b) > 0.85);
  }
}

TEST_CASE("A step to 5% random loss costs one short dip, then the rate returns", "[udpx]") {
  Link link;
  link.capacity = 50e6;  // the flow is held by its target, not by the link
  std::vector<RateController> flows{RateController(settings(Policy::Fair, 12.5e6))};
  const auto loss = [](double t) { return t < 5 ? 0.0 : 0.05; };
  double lowest_after_step = 1e18, last = 0;
  simulate(link, flows, 0, 15, loss, [&](double t, const std::vector<double>& r, double) {
    if (t > 5 && !flows[0].refreshing_base_delay())
      lowest_after_step = std::min(lowest_after_step, r[0]);
    last = r[0];
  });
  REQUIRE(last == Approx(12.5e6));
  REQUIRE(lowest_after_step >= 0.8 * 12.5e6);
  REQUIRE(flows[0].random_loss_baseline() == Approx(0.05).margin(0.02));
}

TEST_CASE("At a policer, loss that grows with the rate holds it near capacity", "[udpx]") {
  Link link;
  link.policer = true;
  std::vector<RateController> flows{RateController(settings(Policy::Fair))};
  double sum = 0;
  int samples = 0;
  simulate(link, flows, 0, 40, no_loss, [&](double t, const std::vector<double>& r, double) {
    if (t < 20) return;
    sum += r[0];
    ++samples;
  });
  REQUIRE(sum / samples > 0.7 * link.capacity);
  REQUIRE(sum / samples < 1.3 * link.capacity);
}

TEST_CASE("Fixed runs at the target and follows a new one at once", "[udpx]") {
  RateController flow(settings(Policy::Fixed, 40e6));
  REQUIRE(flow.rate() == 40e6);
  RateSample congested;
  congested.now = 1;
  congested.queue_delay_min = 0.5;
  congested.lost = 100;
  congested.packets = 100;
  flow.on_feedback(congested);
  REQUIRE(flow.rate() == 40e6);
  flow.set_target(10e6);
  REQUIRE(flow.rate() == 10e6);
}

TEST_CASE("Low yields to a standing queue down to its minimum", "[udpx]") {
  auto s = settings(Policy::Low, 12.5e6);
  s.minimum = 1e6;
  RateController flow(s);
  flow.on_rtt_sample(0.05);
  double t = 0;
  for (int i = 0; i < 3000; ++i) {
    RateSample sample;
    t += kStep;
    sample.now = t;
    sample.interval = kStep;
    sample.queue_delay_min = 0.030;  // loss-based traffic keeps 30 ms queued
    sample.delivery_rate = flow.rate();
    flow.on_feedback(sample);
  }
  REQUIRE(flow.rate() == Approx(1e6));
}

TEST_CASE("An application-limited sender cannot bank rate it does not use", "[udpx]") {
  RateController flow(settings(Policy::Fair));
  flow.on_rtt_sample(0.05);
  RateSample sample;
  sample.now = 0.01;
  sample.interval = kStep;
  sample.app_limited = true;
  sample.sending_rate = 1e6;
  flow.on_feedback(sample);
  REQUIRE(flow.rate() <= 1.25e6);
}
