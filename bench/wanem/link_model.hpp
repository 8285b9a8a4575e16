// One direction of an emulated WAN link, as a pure model: a drop-tail queue in front of a
// serialiser of fixed rate, then random loss, then a constant one-way delay. The emulator
// (bench/wanem/main.cpp) asks it, per packet, when that packet leaves the far end, if at all;
// time is always an argument, so tests drive it with made-up clocks (docs/WANEM.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace gridftp::wanem {

using Nanoseconds = std::int64_t;

struct LinkSettings {
  Nanoseconds one_way_delay = 0;
  std::uint64_t rate_bits_per_second = 0;  // 0: no bottleneck
  std::size_t queue_bytes = 1 << 20;       // backlog the bottleneck holds before dropping
  double loss = 0.0;                       // probability a packet is lost after the bottleneck
  std::uint64_t seed = 1;
};

struct LinkCounters {
  std::uint64_t packets_in = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t packets_delivered = 0;
  std::uint64_t bytes_delivered = 0;
  std::uint64_t random_drops = 0;
  std::uint64_t queue_drops = 0;
};

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: fast, and the same seed gives
// the same losses on every run.
class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed);
  std::uint64_t next();
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_[4];
};

class LinkModel {
 public:
  explicit LinkModel(const LinkSettings& settings);

  // A packet of `ip_bytes` arrives at `now`. Returns when it leaves the far end, or nothing
  // when the queue is full (queue drop) or the wire loses it (random drop; a lost packet still
  // used its share of the bottleneck). Delivery times never go backwards, so the emulator can
  // hold packets in arrival order.
  std::optional<Nanoseconds> admit(Nanoseconds now, std::size_t ip_bytes);
  // How long a packet arriving at `now` would wait behind the backlog.
  Nanoseconds queue_delay(Nanoseconds now) const;
  const LinkCounters& counters() const { return counters_; }
  const LinkSettings& settings() const { return settings_; }

 private:
  Nanoseconds serialisation_time(std::size_t ip_bytes) const;

  LinkSettings settings_;
  Xoshiro256 random_;
  LinkCounters counters_;
  Nanoseconds bottleneck_free_at_ = 0;  // when the serialiser finishes its backlog
};

}  // namespace gridftp::wanem
