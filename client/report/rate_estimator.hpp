// A transfer rate smoothed over a sliding time window, fed with (time, cumulative bytes) samples.
// Pure: time is always an argument, so tests drive it by hand. Not thread-safe; its owner locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "client/clock.hpp"

namespace gridftp::client::report {

class RateEstimator {
 public:
  // `window`: how far back the rate looks. A short window follows changes, a long one is steadier;
  // a few seconds suits a display redrawn a few times a second.
  explicit RateEstimator(Clock::duration window = std::chrono::seconds(5));

  // Records that `bytes_so_far` bytes had arrived by `now`. Samples must come in time order; a
  // count that goes down (the file was restarted) starts the estimate afresh.
  void add(Clock::time_point now, std::uint64_t bytes_so_far);
  // Bytes per second over the window ending at the newest sample; nullopt until two samples lie
  // apart in time.
  std::optional<double> bytes_per_second() const;

 private:
  struct Sample {
    Clock::time_point time;
    std::uint64_t bytes = 0;
  };
  // Callers may feed many samples a second; beyond this many the oldest are dropped, which only
  // shortens the window, so memory stays bounded whatever the feed rate.
  static constexpr std::size_t kMaxSamples = 64;

  Clock::duration window_;
  std::deque<Sample> samples_;
};

}  // namespace gridftp::client::report
