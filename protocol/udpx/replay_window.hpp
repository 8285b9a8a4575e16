// Anti-replay for UDPX packet numbers (docs/UDPX.md §4.4): a 65,536-bit window below the highest
// number accepted, as IPsec ESP's (RFC 4303 §3.4.3) scaled up for high packet rates. Packet
// numbers never repeat and retransmissions carry new ones, so a repeated number is always a
// duplicate made by the network or a replay, and is dropped before any crypto is spent on it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/udpx/slot_bitmap.hpp"

namespace gridftp::protocol::udpx {

class ReplayWindow {
 public:
  static constexpr std::uint64_t kWindowPackets = 65536;

  // Before the tag is checked: false for a number already accepted or too old to tell
  // (at or below highest - kWindowPackets).
  bool may_accept(std::uint64_t packet_number) const;
  // After the tag verified. Returns false (and changes nothing) if may_accept() would have said
  // no, so that two packets with one number racing through decryption count only once.
  bool accept(std::uint64_t packet_number);

  bool empty() const { return !any_; }
  std::uint64_t highest() const { return highest_; }

 private:
  static std::size_t slot(std::uint64_t packet_number) {
    return static_cast<std::size_t>(packet_number % kWindowPackets);
  }

  SlotBitmap bits_{kWindowPackets};  // bit (n mod window) stands for packet n
  std::uint64_t highest_ = 0;
  bool any_ = false;
};

}  // namespace gridftp::protocol::udpx
