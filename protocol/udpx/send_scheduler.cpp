#include "protocol/udpx/send_scheduler.hpp"

#include <algorithm>
#include <bit>

namespace gridftp::protocol::udpx {

SendScheduler::SendScheduler(std::uint64_t window_blocks)
    : window_(std::max<std::uint64_t>(window_blocks, 1)),
      queued_bits_(static_cast<std::size_t>(window_)),
      last_sent_(window_),
      attempts_(window_),
      free_window_(window_) {
  second_copies_.reserve(kMaxSecondCopies);
}

bool SendScheduler::goes_twice(std::uint8_t attempt) const {
  if (redundant_tail_ == 0 || !block_count_) return false;
  // A second repair comes 1.5 RTT after the first and a third 1.5 RTT later, so a block lost
  // twice in the last three round trips' worth of data is still missing when the rest is in.
  const std::uint64_t reach = attempt >= 2 ? 3 * redundant_tail_ : redundant_tail_;
  return *block_count_ - next_new_ <= reach;
}

std::optional<std::uint64_t> SendScheduler::next_second_copy() {
  while (second_copies_head_ < second_copies_.size()) {
    const std::uint64_t k = second_copies_[second_copies_head_];
    // Acknowledged meanwhile, or NAKed again (its repair goes first anyway): nothing to add.
    if (k >= acked_ && !queued(k)) return k;
    ++second_copies_head_;
  }
  second_copies_.clear();  // keeps its capacity: no allocation while sending
  second_copies_head_ = 0;
  return std::nullopt;
}

bool SendScheduler::queued(std::uint64_t k) const { return queued_bits_.test(slot(k)); }

void SendScheduler::set_queued(std::uint64_t k, bool value) { queued_bits_.set(slot(k), value); }

void SendScheduler::set_rtt(Microseconds srtt, Microseconds rttvar) {
  srtt_ = std::max<Microseconds>(srtt, 1);
  rttvar_ = std::max<Microseconds>(rttvar, 0);
}

Microseconds SendScheduler::probe_timeout() const {
  const Microseconds base = srtt_ + std::max<Microseconds>(4 * rttvar_, 1'000) + kMaxAckDelay;
  const unsigned doublings = std::min(probes_unanswered_, 6U);
  return std::min(base << doublings, kMaxProbeTimeout);
}

bool SendScheduler::sent_long_ago(std::uint64_t k, Microseconds now) const {
  return now - last_sent_[slot(k)] >= srtt_ + 4 * rttvar_ + 2'000;
}

void SendScheduler::queue(std::uint64_t k) {
  set_queued(k, true);
  ++queued_count_;
  queue_low_ = std::min(queue_low_, k);
}

void SendScheduler::on_ack(std::uint64_t frontier, std::uint64_t free_window, std::uint64_t highest,
                           Microseconds now) {
  if (frontier > acked_) {
    // Queued retransmissions below the new frontier are no longer needed.
    for (auto k = std::max(acked_, queue_low_); k < frontier && queued_count_ > 0; ++k) {
      if (queued(k)) {
        set_queued(k, false);
        --queued_count_;
      }
    }
    acked_ = std::min(frontier, next_new_);
    queue_low_ = std::max(queue_low_, acked_);
    probes_unanswered_ = 0;
  }
  free_window_ = std::min(free_window, window_);
  const bool window_shut = next_new_ >= acked_ + free_window_;
  if (everything_sent() || window_shut) {
    for (auto k = std::max(highest, acked_); k < next_new_; ++k) {
      if (!queued(k) && sent_long_ago(k, now)) {
        queue(k);
      }
    }
  }
}

void SendScheduler::on_nak(std::span<const BlockRange> ranges, Microseconds now) {
  probes_unanswered_ = 0;
  for (const auto& range : ranges) {
    const std::uint64_t end = std::min(range.start + range.count, next_new_);
    for (auto k = std::max(range.start, acked_); k < end; ++k) {
      if (queued(k)) {
        continue;
      }
      // Only a repair can still be on its way: the receiver NAKs a first copy only once later
      // blocks and the reordering window have passed it. Holding a first copy to the repair's
      // guard (an RTT plus 4 rttvar) let a NAK that came back in one RTT be ignored whenever
      // rttvar was above zero, and the repair waited for the next NAK.
      if (attempts_[slot(k)] > 0 && !sent_long_ago(k, now)) {
        ++suppressed_;
        continue;
      }
      queue(k);
    }
  }
}

std::optional<std::uint64_t> SendScheduler::lowest_queued() {
  if (queued_count_ == 0) {
    return std::nullopt;
  }
  // Word-wise scan from the lowest possibly queued block; queued blocks lie in
  // [acked_, next_new_), which is at most one window.
  std::uint64_t k = std::max(queue_low_, acked_);
  while (k < next_new_) {
    const auto s = slot(k);
    const std::uint64_t word = queued_bits_.bits_from(s);
    if (word != 0) {
      const auto found = k + static_cast<std::uint64_t>(std::countr_zero(word));
      // The shifted word may run past the window's wrap point; countr_zero stays inside it.
      if (found < next_new_) {
        queue_low_ = found;
        return found;
      }
      break;
    }
    // Next word, or the window's wrap point if it comes first (the window need not be a
    // multiple of 64).
    k += std::min<std::uint64_t>(64 - s % 64, window_ - s);
  }
  queue_low_ = next_new_;
  return std::nullopt;
}

SendScheduler::Next SendScheduler::next(Microseconds now) {
  if (block_count_ && acked_ >= *block_count_) {
    return {Next::Kind::Done};
  }
  if (auto k = lowest_queued()) {
    return {Next::Kind::Retransmit, *k,
            static_cast<std::uint8_t>(std::min<unsigned>(attempts_[slot(*k)] + 1U, 255U))};
  }
  if (auto k = next_second_copy()) {
    return {Next::Kind::Retransmit, *k, attempts_[slot(*k)], true};
  }
  const bool window_open = next_new_ < acked_ + free_window_;
  if (!everything_sent() && window_open) {
    return {Next::Kind::New, next_new_, 0};
  }
  // Everything is out (or the window is shut): make the receiver say what is still missing,
  // once per probe timeout, backing off while nobody answers.
  if (next_new_ > acked_ && (!probed_ || now - last_probe_ >= probe_timeout())) {
    return {Next::Kind::TailProbe};
  }
  return {Next::Kind::Wait};
}

void SendScheduler::on_sent(const Next& sent, Microseconds now) {
  switch (sent.kind) {
    case Next::Kind::Retransmit:
      if (sent.second_copy) {
        if (second_copies_head_ < second_copies_.size() &&
            second_copies_[second_copies_head_] == sent.block) {
          ++second_copies_head_;
        }
        ++second_copies_sent_;
      } else {
        if (queued(sent.block)) {
          set_queued(sent.block, false);
          --queued_count_;
        }
        attempts_[slot(sent.block)] = sent.attempt;
        if (goes_twice(sent.attempt) && second_copies_.size() < kMaxSecondCopies) {
          second_copies_.push_back(sent.block);
        }
      }
      last_sent_[slot(sent.block)] = now;
      ++retransmissions_;
      break;
    case Next::Kind::New:
      attempts_[slot(sent.block)] = 0;
      last_sent_[slot(sent.block)] = now;
      next_new_ = std::max(next_new_, sent.block + 1);
      break;
    case Next::Kind::TailProbe:
      if (probed_) {
        ++probes_unanswered_;
      }
      probed_ = true;
      last_probe_ = now;
      break;
    case Next::Kind::Wait:
    case Next::Kind::Done:
      break;
  }
}

}  // namespace gridftp::protocol::udpx
