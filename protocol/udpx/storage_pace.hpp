// Receiver storage adaptation (docs/UDPX.md §2.4): when writing to storage, not the network,
// limits a transfer, the receiver tells the sender how fast its storage takes data (FEEDBACK's
// storage cap) so the sender slows to that pace instead of overrunning the socket buffer and
// paying for it in drops and retransmissions. Pure: the receiver reports each write's bytes
// and the time it took; each FEEDBACK interval yields the storage rate and cap to send.
#pragma once

#include <cstdint>

#include "protocol/udpx/packet_header.hpp"

namespace gridftp::protocol::udpx {

class StoragePace {
 public:
  // Storage busy for more than this share of an interval is the bottleneck; below the lower
  // share (with data flowing) it no longer is. The gap keeps the cap from flapping.
  static constexpr double kLimitingShare = 0.5;
  static constexpr double kReleaseShare = 0.25;
  // The cap leaves the receive loop this share of its time for everything but writing.
  static constexpr double kHeadroom = 0.8;

  struct Report {
    std::uint64_t rate = 0;  // bytes/s written in the interval
    std::uint64_t cap = 0;   // bytes/s the sender should not exceed; 0: no limit
  };

  void on_write(std::uint64_t bytes, Microseconds busy) {
    bytes_ += bytes;
    busy_ += busy;
  }
  Report end_interval(Microseconds interval);
  bool limiting() const { return limiting_; }

 private:
  std::uint64_t bytes_ = 0;
  Microseconds busy_ = 0;
  double capacity_ = 0;  // bytes/s the storage takes while busy, smoothed
  bool limiting_ = false;
};

}  // namespace gridftp::protocol::udpx
