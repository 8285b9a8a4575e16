#include "protocol/udpx/rate_controller.hpp"

#include <algorithm>
#include <cmath>

namespace gridftp::protocol::udpx {
namespace {

constexpr double kMinimumFloor = 100e3 / 8;  // 100 kb/s
constexpr double kStartupFloor = 1e6 / 8;    // Startup begins at no less than 1 Mb/s
// Startup begins at target/32: one round trip fewer than target/64 (0.3 s at 300 ms). At /16 a
// flow starting into another's Startup queue took nineteen twentieths of the link in the
// simulation of the unit tests (docs/UDPX.md §2.3).
constexpr double kStartupShare = 1.0 / 32;
// With a start rate from the path's last transfer (docs/UDPX.md §2.3) Startup begins there and
// grows a quarter per RTT: the queue news that ends it is a round trip old, so it has overshot
// by at most 1.25x then, a quarter of a BDP, where doubling overshoots by a whole one. The rate
// remembered is a whole transfer's average, Startup and tail included, so it sits below what
// the path carried once started.
constexpr double kHintedStartShare = 1.0;
constexpr double kHintedStartupGrowth = 1.25;
constexpr double kLowPolicyDelay = 0.020;    // "low" yields once the queue passes 20 ms
constexpr double kProbeGrowth = 1.10;        // per RTT; the queue news comes an RTT late
constexpr int kStartupQueueReports = 1;      // one report of a queue ends Startup: it is an RTT old
constexpr double kMaxGainPerReport = 0.125;  // a report is an RTT late: short paths need a cap
constexpr double kBackstopCut = 0.85;
constexpr int kBackstopTestRounds = 2;
// Base-delay refresh: a flow that started into a standing queue takes it for propagation delay
// and keeps it full (docs/UDPX.md §2.3). Halving the rate for 200 ms after Startup lets the
// bottleneck empty, so every flow's receiver sees the true baseline; repeating it every 30 s
// keeps a true minimum inside the receiver's 64-second memory (§2.2) for 0.3 % of the rate.
constexpr double kRefreshFactor = 0.5;
constexpr double kRefreshSeconds = 0.2;
constexpr double kRefreshInterval = 30;

}  // namespace

RateController::RateController(const RateSettings& settings) : settings_(settings) {
  rate_ = std::max(settings_.target * kStartupShare, std::min(kStartupFloor, settings_.target));
  if (settings_.start_rate > 0) {
    rate_ = std::max(rate_, kHintedStartShare * settings_.start_rate);
    startup_growth_ = kHintedStartupGrowth;
  }
  if (settings_.policy == Policy::Fixed) {
    rate_ = settings_.target;
    phase_ = Phase::Steady;
  }
  clamp_rate();
}

double RateController::weight() const {
  switch (settings_.policy) {
    case Policy::High:
      return 2;
    case Policy::Low:
      return 0.1;
    case Policy::Fixed:
    case Policy::Fair:
      return 1;
  }
  return 1;
}

double RateController::floor() const {
  const double two_packets_per_rtt = srtt_ > 0 ? 2 * settings_.packet_bytes / srtt_ : 0;
  return std::max({kMinimumFloor, two_packets_per_rtt, settings_.minimum});
}

void RateController::clamp_rate() {
  if (settings_.policy == Policy::Fixed) rate_ = settings_.target;
  rate_ = std::clamp(rate_, std::min(floor(), settings_.target), settings_.target);
}

void RateController::set_target(double target) {
  settings_.target = target;
  clamp_rate();
}

void RateController::set_minimum(double minimum) {
  settings_.minimum = minimum;
  clamp_rate();
}

void RateController::on_rtt_sample(double rtt) {
  if (rtt <= 0) return;
  if (srtt_ == 0) {
    srtt_ = rtt;
    rttvar_ = rtt / 2;
    rtt_min_ = rtt;
    return;
  }
  rttvar_ = 0.75 * rttvar_ + 0.25 * std::fabs(srtt_ - rtt);
  srtt_ = 0.875 * srtt_ + 0.125 * rtt;
  rtt_min_ = std::min(rtt_min_, rtt);
}

void RateController::leave_startup() {
  phase_ = Phase::Steady;
  // What actually got through drains the queue Startup built.
  const double delivered = std::max(round_max_delivery_, last_round_max_delivery_);
  if (delivered > 0) rate_ = std::min(rate_, delivered);
  next_refresh_ = 0;  // refresh the baseline at once: Startup may have begun into a queue
}

bool RateController::refreshing(double now) {
  if (refresh_until_ > 0) {
    if (now < refresh_until_) return true;
    refresh_until_ = 0;
    rate_ = std::max(rate_, rate_before_refresh_);
    next_refresh_ = now + kRefreshInterval;
    return false;
  }
  if (phase_ == Phase::Startup || now < next_refresh_) return false;
  rate_before_refresh_ = rate_;
  rate_ *= kRefreshFactor;
  refresh_until_ = now + kRefreshSeconds;
  return true;
}

void RateController::check_loss_round() {
  if (round_packets_ == 0) return;
  const double n = static_cast<double>(round_packets_);
  const double ratio = static_cast<double>(round_lost_) / n;
  if (phase_ == Phase::Startup || !loss_baseline_known_) {
    // Startup's rounds set the path's random loss: its lowest round, since a round that met
    // a full queue (another flow's, or its own overshoot) overstates it.
    loss_baseline_ = loss_baseline_known_ ? std::min(loss_baseline_, ratio) : ratio;
    loss_baseline_known_ = true;
    if (phase_ == Phase::Startup) return;
  }
  const double spread = 3 * std::sqrt(loss_baseline_ * (1 - loss_baseline_) / n);
  const bool excess = ratio > loss_baseline_ + spread + 0.01;
  if (testing_rounds_left_ > 0) {
    if (--testing_rounds_left_ == 0) {
      // Congestive loss falls when the rate falls; random loss does not. If the cut brought
      // no clear fall, the level is the path's own: accept it and take the rate back.
      const double cut_spread = 3 * std::sqrt(loss_at_cut_ * (1 - loss_at_cut_) / n);
      if (ratio >= loss_at_cut_ - cut_spread) {
        loss_baseline_ = ratio;
        rate_ = saved_rate_;
      }
      excess_rounds_ = 0;  // else congestion confirmed: keep the cut, and it may fire again
      last_round_excess_ = false;
    }
    return;
  }
  excess_rounds_ = excess ? excess_rounds_ + 1 : 0;
  last_round_excess_ = excess;
  if (excess_rounds_ >= 2) {
    saved_rate_ = rate_;
    loss_at_cut_ = ratio;
    rate_ *= kBackstopCut;
    testing_rounds_left_ = kBackstopTestRounds;
    excess_rounds_ = 0;
    if (phase_ == Phase::Startup) {
      leave_startup();  // Startup overshot into a loss-only bottleneck: drain to what got through
      saved_rate_ = rate_;
    } else {
      phase_ = Phase::Steady;
    }
  }
}

void RateController::end_round(const RateSample& sample) {
  check_loss_round();
  if (phase_ == Phase::Startup) {
    // BBR's full-pipe test: three rounds without 25 % more delivered.
    if (round_max_delivery_ >= 1.25 * full_delivery_) {
      full_delivery_ = round_max_delivery_;
      rounds_without_growth_ = 0;
    } else if (++rounds_without_growth_ >= 3) {
      leave_startup();
    }
  }
  if (phase_ == Phase::Steady && settings_.policy != Policy::Fixed) {
    // No probing into loss we do not yet know to be random.
    const bool quiet = sample.queue_delay_min < settings_.target_delay / 2 && !last_round_excess_ &&
                       testing_rounds_left_ == 0;
    quiet_rounds_ =
        quiet && !sample.app_limited && rate_ < settings_.target ? quiet_rounds_ + 1 : 0;
    if (quiet_rounds_ >= 3) {
      phase_ = Phase::Probe;
      quiet_rounds_ = 0;
    }
  }
  last_round_max_delivery_ = round_max_delivery_;
  round_max_delivery_ = 0;
  round_packets_ = 0;
  round_lost_ = 0;
  round_start_ = sample.now;
  rate_at_round_start_ = rate_;
}

void RateController::on_feedback(const RateSample& sample) {
  if (settings_.policy == Policy::Fixed) {
    clamp_rate();
    return;
  }
  const double srtt = srtt_ > 0 ? srtt_ : 0.1;
  if (round_start_ < 0) {
    round_start_ = sample.now;
    rate_at_round_start_ = rate_;
  }
  round_max_delivery_ = std::max(round_max_delivery_, sample.delivery_rate);
  round_packets_ += sample.packets;
  round_lost_ += sample.lost;
  const double rounds = sample.interval / srtt;
  const double gain = std::min(kMaxGainPerReport, settings_.gain * rounds);
  // While the backstop tests a cut the rate holds still: the test compares loss at two rates.
  // After a round of excess loss it holds too, rather than grow into a possible policer.
  if (!refreshing(sample.now) && testing_rounds_left_ == 0 && excess_rounds_ == 0)
    update_rate(sample, rounds, gain);
  if (sample.app_limited && sample.sending_rate > 0)
    rate_ = std::min(rate_, 1.25 * sample.sending_rate);
  if (sample.now - round_start_ >= srtt) end_round(sample);
  clamp_rate();
}

void RateController::update_rate(const RateSample& sample, double rounds, double gain) {
  const double srtt = srtt_ > 0 ? srtt_ : 0.1;
  const double rtt_min = rtt_min_ > 0 ? rtt_min_ : srtt;
  const double q = sample.queue_delay_min;
  switch (phase_) {
    case Phase::Startup:
      rate_ *= std::pow(startup_growth_, rounds);
      startup_queue_reports_ = q > settings_.target_delay ? startup_queue_reports_ + 1 : 0;
      if (startup_queue_reports_ >= kStartupQueueReports || rate_ >= settings_.target)
        leave_startup();
      break;
    case Phase::Probe:
      rate_ *= std::pow(kProbeGrowth, rounds);
      if (q > settings_.target_delay / 2) {
        // The queue news is a round trip old, so the rate has overshot by then (1.25^2 at
        // worst): drop to what got through, as Startup does, before the law takes over.
        phase_ = Phase::Steady;
        const double delivered = std::max(round_max_delivery_, sample.delivery_rate);
        if (delivered > 0) rate_ = std::min(rate_, delivered);
      }
      break;
    case Phase::Steady: {
      const double alpha = weight() * settings_.alpha_bytes;
      const double equilibrium =
          (rate_ * (rtt_min + settings_.target_delay) + alpha) / (rtt_min + q);
      rate_ = (1 - gain) * rate_ + gain * equilibrium;
      rate_ = std::min(rate_, 2 * rate_at_round_start_);  // at most doubling per RTT
      if (settings_.policy == Policy::Low && q > kLowPolicyDelay)
        rate_ = std::max(settings_.minimum, rate_ * (1 - gain / 2));
      break;
    }
  }
}

}  // namespace gridftp::protocol::udpx
