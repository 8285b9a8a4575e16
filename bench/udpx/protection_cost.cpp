#include "bench/udpx/protection_cost.hpp"

#include <ctime>
#include <optional>
#include <vector>

#include "protocol/udpx/packet_header.hpp"

namespace gridftp::bench {

namespace {

using protocol::udpx::kFrontBytes;  // DATA's clear front, the associated data
using security::udpx::kTagBytes;

constexpr std::size_t kRingPackets = 64;  // one send batch's worth, as the engine holds them

double thread_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace

std::optional<ProtectionCost> measure_protection_cost(std::uint64_t file_bytes,
                                                      std::size_t body_bytes,
                                                      security::udpx::BodyProtection protection) {
  security::udpx::PacketKeys keys;
  if (!security::udpx::fill_random(keys.key) || !security::udpx::fill_random(keys.iv)) {
    return std::nullopt;
  }
  auto aead = security::udpx::PacketProtection::create(keys);
  if (!aead) return std::nullopt;
  const std::size_t packet_bytes = kFrontBytes + body_bytes + kTagBytes;
  std::vector<std::uint8_t> ring(kRingPackets * packet_bytes);
  if (!security::udpx::fill_random(ring)) return std::nullopt;
  const auto packet = [&](std::size_t i) {
    return std::span<std::uint8_t>(ring).subspan(i * packet_bytes, packet_bytes);
  };

  ProtectionCost cost;
  std::uint64_t number = 0;
  for (std::uint64_t done = 0; done < file_bytes; done += kRingPackets * body_bytes) {
    const std::uint64_t first = number;
    const double before_seal = thread_cpu_seconds();
    for (std::size_t i = 0; i < kRingPackets; ++i) {
      if (!aead->seal(packet(i), kFrontBytes, number++, protection)) return std::nullopt;
    }
    const double before_open = thread_cpu_seconds();
    for (std::size_t i = 0; i < kRingPackets; ++i) {
      if (!aead->open(packet(i), kFrontBytes, first + i, protection)) return std::nullopt;
    }
    const double after = thread_cpu_seconds();
    cost.seal_seconds += before_open - before_seal;
    cost.open_seconds += after - before_open;
  }
  return cost;
}

}  // namespace gridftp::bench
