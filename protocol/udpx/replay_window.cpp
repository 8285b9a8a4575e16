#include "protocol/udpx/replay_window.hpp"

namespace gridftp::protocol::udpx {

bool ReplayWindow::test(std::uint64_t packet_number) const {
  const std::uint64_t slot = packet_number % kWindowPackets;
  return ((bits_[slot / 64] >> (slot % 64)) & 1U) != 0;
}

void ReplayWindow::set(std::uint64_t packet_number) {
  const std::uint64_t slot = packet_number % kWindowPackets;
  bits_[slot / 64] |= std::uint64_t{1} << (slot % 64);
}

void ReplayWindow::clear(std::uint64_t packet_number) {
  const std::uint64_t slot = packet_number % kWindowPackets;
  bits_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
}

bool ReplayWindow::may_accept(std::uint64_t packet_number) const {
  if (!any_ || packet_number > highest_) {
    return true;
  }
  if (highest_ - packet_number >= kWindowPackets) {
    return false;
  }
  return !test(packet_number);
}

bool ReplayWindow::accept(std::uint64_t packet_number) {
  if (!may_accept(packet_number)) {
    return false;
  }
  if (!any_ || packet_number > highest_) {
    const std::uint64_t first_new = any_ ? highest_ + 1 : 0;
    if (packet_number - first_new >= kWindowPackets) {
      bits_.fill(0);
    } else {
      // The slots between the old highest and the new one now stand for numbers not yet seen.
      // Usually none or a few; a jump clears whole words at a time.
      std::uint64_t n = first_new;
      while (n < packet_number) {
        if (n % 64 == 0 && packet_number - n >= 64) {
          bits_[(n % kWindowPackets) / 64] = 0;
          n += 64;
        } else {
          clear(n);
          ++n;
        }
      }
    }
    highest_ = packet_number;
    any_ = true;
  }
  set(packet_number);
  return true;
}

}  // namespace gridftp::protocol::udpx
