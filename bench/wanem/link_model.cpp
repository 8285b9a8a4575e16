#include "bench/wanem/link_model.hpp"

#include <algorithm>

namespace gridftp::wanem {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotate_left(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

constexpr std::uint64_t kNanosecondsPerSecond = 1'000'000'000;

}  // namespace

Xoshiro256::Xoshiro256(std::uint64_t seed) {
  for (auto& word : state_) word = splitmix64(seed);
}

std::uint64_t Xoshiro256::next() {
  const std::uint64_t result = rotate_left(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotate_left(state_[3], 45);
  return result;
}

LinkModel::LinkModel(const LinkSettings& settings) : settings_(settings), random_(settings.seed) {}

Nanoseconds LinkModel::serialisation_time(std::size_t ip_bytes) const {
  if (settings_.rate_bits_per_second == 0) return 0;
  // A packet is at most 64 KiB: 8 * 65536 * 1e9 fits 64 bits with room to spare.
  const auto bits = static_cast<std::uint64_t>(ip_bytes) * 8U;
  return static_cast<Nanoseconds>(bits * kNanosecondsPerSecond / settings_.rate_bits_per_second);
}

Nanoseconds LinkModel::queue_delay(Nanoseconds now) const {
  return std::max<Nanoseconds>(0, bottleneck_free_at_ - now);
}

std::optional<Nanoseconds> LinkModel::admit(Nanoseconds now, std::size_t ip_bytes) {
  ++counters_.packets_in;
  counters_.bytes_in += ip_bytes;
  if (settings_.rate_bits_per_second != 0) {
    // Bytes still waiting for the serialiser when this packet arrives.
    // In floating point: seconds of backlog times bits per second overflows 64-bit integers.
    const double backlog_bytes = static_cast<double>(queue_delay(now)) *
                                 static_cast<double>(settings_.rate_bits_per_second) / 8e9;
    if (backlog_bytes + static_cast<double>(ip_bytes) >
        static_cast<double>(settings_.queue_bytes)) {
      ++counters_.queue_drops;
      return std::nullopt;
    }
  }
  bottleneck_free_at_ = std::max(now, bottleneck_free_at_) + serialisation_time(ip_bytes);
  if (settings_.loss > 0 && random_.uniform() < settings_.loss) {
    ++counters_.random_drops;
    return std::nullopt;
  }
  ++counters_.packets_delivered;
  counters_.bytes_delivered += ip_bytes;
  return bottleneck_free_at_ + settings_.one_way_delay;
}

}  // namespace gridftp::wanem
