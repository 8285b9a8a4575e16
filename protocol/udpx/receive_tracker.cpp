#include "protocol/udpx/receive_tracker.hpp"

#include <algorithm>

namespace gridftp::protocol::udpx {

ReceiveTracker::ReceiveTracker(std::uint64_t window_blocks)
    : window_(std::max<std::uint64_t>(window_blocks, 1)),
      received_(static_cast<std::size_t>(window_)),
      noticed_at_(window_),
      next_nak_at_(window_) {}

bool ReceiveTracker::have(std::uint64_t k) const { return received_.test(slot(k)); }

void ReceiveTracker::set_have(std::uint64_t k, bool value) { received_.set(slot(k), value); }

void ReceiveTracker::set_block_count(std::uint64_t blocks) { block_count_ = blocks; }

ReceiveTracker::Arrival ReceiveTracker::on_block(std::uint64_t k, bool original, Microseconds now) {
  if (block_count_ && k >= *block_count_) return Arrival::BeyondEnd;
  if (k < frontier_) {
    ++duplicates_;
    return Arrival::Duplicate;
  }
  if (k - frontier_ >= window_) return Arrival::BeyondWindow;
  if (k < highest_) {
    if (have(k)) {
      ++duplicates_;
      return Arrival::Duplicate;
    }
    // A first send arriving after later blocks: the path reorders. Widen the time a gap must
    // age before it counts as lost, up to a quarter RTT (RFC 9002's RACK-style window).
    if (original) {
      const auto late_by = now - noticed_at_[slot(k)];
      const auto widened = std::max(reorder_window_, late_by + late_by / 4);
      reorder_window_ = srtt_ > 0 ? std::min(widened, srtt_ / 4) : widened;
    }
  } else {
    for (auto skipped = highest_; skipped < k; ++skipped) {
      const auto s = slot(skipped);
      noticed_at_[s] = now;
      next_nak_at_[s] = now;
    }
    highest_ = k + 1;
  }
  set_have(k, true);
  while (frontier_ < highest_ && have(frontier_)) {
    set_have(frontier_, false);  // the slot now stands for block frontier + window
    ++frontier_;
  }
  return Arrival::New;
}

bool ReceiveTracker::is_lost(std::uint64_t k, Microseconds now) const {
  // Once the last block is in, no later block can come to reveal a gap among the last few.
  const bool enough_above =
      highest_ >= k + 1 + kReorderThreshold || (block_count_ && highest_ == *block_count_);
  return enough_above && now - noticed_at_[slot(k)] >= reorder_window_;
}

template <typename Accept, typename Emit>
void ReceiveTracker::for_each_missing_run(Accept accept, Emit emit) const {
  std::optional<BlockRange> run;
  for (auto k = frontier_; k < highest_; ++k) {
    const auto s = slot(k);
    if (s % 64 == 0 && received_.word_full(s) && k + 64 <= highest_) {
      k += 63;  // a whole word received: nothing missing in it
      if (run) {
        if (!emit(*run)) return;
        run.reset();
      }
      continue;
    }
    if (!have(k) && accept(k)) {
      if (run && run->start + run->count == k) {
        ++run->count;
      } else {
        if (run && !emit(*run)) return;
        run = BlockRange{k, 1};
      }
    }
  }
  if (run) emit(*run);
}

void ReceiveTracker::collect_due_naks(Microseconds now, Microseconds interval,
                                      std::size_t max_ranges, std::vector<BlockRange>& out) {
  const auto first = out.size();
  for_each_missing_run(
      [&](std::uint64_t k) { return is_lost(k, now) && next_nak_at_[slot(k)] <= now; },
      [&](const BlockRange& range) {
        if (out.size() - first >= max_ranges) return false;
        out.push_back(range);
        return true;
      });
  // Each loss of a copy is a new, independent event: the next NAK is due one retransmission
  // round trip later, every time. Backing off here held the frontier for seconds on a
  // 300 ms / 5 % path (a block lost three times waited 0.45 + 0.9 + 1 s) until the window
  // filled; the sender's own guard keeps a repeated NAK from sending a copy still in flight.
  const auto renak = std::min(interval, kMaxRenakInterval);
  const auto due = now + renak;
  // The first NAK goes twice, a short gap apart: on a path that loses reports as well, a lost
  // first NAK held its block a whole interval (1.5 RTT) and the transfer's end waited for it.
  const auto repeat_due = now + std::min(renak, std::max(renak / 6, kMinNakRepeatGap));
  for (auto i = first; i < out.size(); ++i) {
    for (auto k = out[i].start; k < out[i].start + out[i].count; ++k) {
      const auto s = slot(k);
      next_nak_at_[s] = next_nak_at_[s] == noticed_at_[s] ? repeat_due : due;
    }
  }
}

void ReceiveTracker::collect_missing(std::size_t max_ranges, std::vector<BlockRange>& out) const {
  const auto first = out.size();
  for_each_missing_run([](std::uint64_t) { return true; },
                       [&](const BlockRange& range) {
                         if (out.size() - first >= max_ranges) return false;
                         out.push_back(range);
                         return true;
                       });
}

}  // namespace gridftp::protocol::udpx
