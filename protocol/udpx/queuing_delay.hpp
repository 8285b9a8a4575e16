// Forward queuing delay from DATA packets' send times (docs/UDPX.md §2.2), at the receiver.
// The one-way delay d = receive time - send time mixes the propagation delay, the clocks'
// unknown offset and their relative drift (skew) with the queuing delay we want. Per second
// the smallest d is kept (64 seconds of them); the skew is the Theil-Sen slope through those
// minima (the median of pairwise slopes, robust to a few queued seconds), and the baseline is
// the lowest minimum once the slope is taken out. What a packet's d exceeds the baseline by is
// its queuing delay; offset and skew cancel. Pure: times are arguments.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace gridftp::protocol::udpx {

class QueuingDelayEstimator {
 public:
  static constexpr std::size_t kBuckets = 64;
  static constexpr std::int64_t kBucketMicroseconds = 1'000'000;
  static constexpr double kMaxSkew = 500e-6;  // clocks drifting faster than this are broken

  // A DATA packet received at `receive_time_us` (our clock) sent at `tx_time_us` (the sender's
  // clock, mod 2^32). Returns its queuing delay in µs (>= 0).
  std::int64_t on_packet(std::int64_t receive_time_us, std::uint32_t tx_time_us);

  double skew() const { return skew_; }  // the slope in use (seconds per second)

 private:
  struct Bucket {
    std::int64_t second = -1;  // receive_time / 1 s; -1 while unused
    std::int64_t at = 0;       // receive time of the minimum
    std::int64_t min_delay = 0;
  };

  std::int64_t unwrapped_delay(std::int64_t receive_time_us, std::uint32_t tx_time_us);
  void refit();  // skew and baseline from the closed buckets
  std::int64_t baseline_at(std::int64_t receive_time_us) const;

  std::optional<std::uint32_t> first_raw_;
  std::int64_t first_delay_ = 0;
  std::array<Bucket, kBuckets> buckets_{};
  std::size_t current_ = 0;
  double skew_ = 0;
  double intercept_ = 0;  // min over buckets of (min_delay - skew * at)
  std::array<double, kBuckets*(kBuckets - 1) / 2> slopes_{};  // refit's scratch, no allocation
  bool fitted_ = false;
};

}  // namespace gridftp::protocol::udpx
