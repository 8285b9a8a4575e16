// The UDPX sender's network rate x_net (docs/UDPX.md §2.3): a delay-based law of the
// Kelly/FAST family. Each flow aims to keep `alpha` bytes queued beyond a target delay tau0, so
// N flows on a link of capacity C settle at queue tau0 + sum(alpha)/C and share C in proportion
// to their weights, whatever their RTTs. Random loss does not move the rate: a backstop cuts it
// only for loss that falls when the rate falls (congestion at a shallow buffer or a policer).
// Pure: every input carries its own time.
#pragma once

#include <array>
#include <cstdint>

#include "protocol/udpx/control_bodies.hpp"

namespace gridftp::protocol::udpx {

struct RateSettings {
  double target = 125e6;  // x_hi, bytes/s: the rate asked for (gridcp --rate), server-capped
  double minimum = 0;     // bytes/s the network side never goes below (gridcp --min-rate)
  Policy policy = Policy::Fair;
  double alpha_bytes = 32 * 1024;  // alpha0: bytes each fair flow keeps queued
  double target_delay = 0.003;     // tau0, seconds
  double gain = 0.5;               // gamma0 per RTT
  double packet_bytes = 1452;      // U, for the floor of two packets per RTT
  // Bytes/s this path carried last time (a hint from the HELLO, docs/UDPX.md §2.3); 0: none.
  double start_rate = 0;
};

// One FEEDBACK's worth of measurements, in seconds and bytes/s.
struct RateSample {
  double now = 0;              // when it arrived, seconds on the sender's clock
  double interval = 0.01;      // the interval it reports
  double queue_delay_min = 0;  // q, seconds
  double delivery_rate = 0;    // payload bytes/s received
  std::uint64_t packets = 0;   // received in the interval
  std::uint64_t lost = 0;      // lost in the interval
  bool app_limited = false;    // we had less to send than the rate allowed
  double sending_rate = 0;     // what we actually sent over the last RTT, bytes/s
};

class RateController {
 public:
  enum class Phase { Startup, Steady, Probe };

  explicit RateController(const RateSettings& settings);

  // RTT samples from ACK/FEEDBACK echoes, seconds: smoothed as RFC 9002 does.
  void on_rtt_sample(double rtt);
  void on_feedback(const RateSample& sample);
  // A new target or minimum mid-transfer (SITE UDPX RATE) applies from the next packet.
  void set_target(double target);
  void set_minimum(double minimum);

  double rate() const { return rate_; }  // x_net, bytes/s
  Phase phase() const { return phase_; }
  double srtt() const { return srtt_; }
  double rttvar() const { return rttvar_; }
  double rtt_min() const { return rtt_min_; }
  double random_loss_baseline() const { return loss_baseline_; }
  bool refreshing_base_delay() const { return refresh_until_ > 0; }

 private:
  double weight() const;
  double floor() const;
  void clamp_rate();
  void update_rate(const RateSample& sample, double rounds, double gain);
  void leave_startup();
  void end_round(const RateSample& sample);
  void check_loss_round();
  bool refreshing(double now);

  RateSettings settings_;
  Phase phase_ = Phase::Startup;
  double rate_ = 0;
  double startup_growth_ = 2;  // per RTT
  double srtt_ = 0;
  double rttvar_ = 0;
  double rtt_min_ = 0;

  // Per RTT round.
  double round_start_ = -1;
  double rate_at_round_start_ = 0;
  double round_max_delivery_ = 0;
  double last_round_max_delivery_ = 0;
  std::uint64_t round_packets_ = 0;
  std::uint64_t round_lost_ = 0;

  // Startup's exits: queue seen twice running; delivery rate stopped growing for 3 rounds.
  int startup_queue_reports_ = 0;
  double full_delivery_ = 0;
  int rounds_without_growth_ = 0;

  // Probe: rounds with the queue under tau0/2.
  int quiet_rounds_ = 0;

  // Base-delay refresh: the rate is held at half until refresh_until_.
  double next_refresh_ = 0;
  double refresh_until_ = 0;
  double rate_before_refresh_ = 0;

  // Loss backstop.
  bool loss_baseline_known_ = false;
  double loss_baseline_ = 0;
  int excess_rounds_ = 0;
  int testing_rounds_left_ = 0;
  double saved_rate_ = 0;
  double loss_at_cut_ = 0;
  bool last_round_excess_ = false;
};

}  // namespace gridftp::protocol::udpx
