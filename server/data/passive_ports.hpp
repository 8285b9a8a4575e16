// The ports a passive listener (TCP PASV, UDPX's UDP PASV) or an outgoing data connection tries,
// in order: the configured range starting from a random point, so that concurrent sessions do
// not all probe the same ports first, or only port 0 (any) when no range is configured.
#pragma once

#include <cstdint>
#include <random>

#include "server/config/server_config.hpp"

namespace gridftp::server {

class PassivePortWalk {
 public:
  explicit PassivePortWalk(const ListenConfig& listen)
      : PassivePortWalk(listen.passive_port_min, listen.passive_port_max) {}
  PassivePortWalk(std::uint16_t low, std::uint16_t high)
      : low_(low),
        span_(low_ == 0 ? 1 : high - low_ + 1),
        first_(low_ == 0 ? 0 : static_cast<unsigned>(std::random_device{}() % span_)) {}

  unsigned size() const { return span_; }
  std::uint16_t operator[](unsigned i) const {
    return static_cast<std::uint16_t>(low_ == 0 ? 0 : low_ + (first_ + i) % span_);
  }

 private:
  unsigned low_;
  unsigned span_;
  unsigned first_;
};

}  // namespace gridftp::server
