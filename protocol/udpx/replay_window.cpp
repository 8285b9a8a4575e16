#include "protocol/udpx/replay_window.hpp"

namespace gridftp::protocol::udpx {

bool ReplayWindow::may_accept(std::uint64_t packet_number) const {
  if (!any_ || packet_number > highest_) {
    return true;
  }
  if (highest_ - packet_number >= kWindowPackets) {
    return false;
  }
  return !bits_.test(slot(packet_number));
}

bool ReplayWindow::accept(std::uint64_t packet_number) {
  if (!may_accept(packet_number)) {
    return false;
  }
  if (!any_ || packet_number > highest_) {
    const std::uint64_t first_new = any_ ? highest_ + 1 : 0;
    if (packet_number - first_new >= kWindowPackets) {
      bits_.clear_all();
    } else {
      // The slots between the old highest and the new one now stand for numbers not yet seen.
      // Usually none or a few; a jump clears whole words at a time.
      std::uint64_t n = first_new;
      while (n < packet_number) {
        if (n % 64 == 0 && packet_number - n >= 64) {
          bits_.clear_word(slot(n));
          n += 64;
        } else {
          bits_.set(slot(n), false);
          ++n;
        }
      }
    }
    highest_ = packet_number;
    any_ = true;
  }
  bits_.set(slot(packet_number), true);
  return true;
}

}  // namespace gridftp::protocol::udpx
