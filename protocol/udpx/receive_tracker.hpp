// The receiver's view of one UDPX transfer's blocks (docs/UDPX.md §3.2): which blocks
// arrived, the frontier below which all did, which missing blocks count as lost (three later
// blocks arrived, and a reordering window has passed once reordering was seen), and when each
// lost block is NAKed again (every retransmission round trip). Pure: time is an argument, and the
// state is a few arrays sized once for the receive window, so arrivals allocate nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "protocol/udpx/control_bodies.hpp"
#include "protocol/udpx/slot_bitmap.hpp"

namespace gridftp::protocol::udpx {

class ReceiveTracker {
 public:
  // Later blocks that must arrive before a missing one counts as lost (RFC 9002's packet
  // threshold, applied to blocks sent in order).
  static constexpr std::uint64_t kReorderThreshold = 3;
  static constexpr Microseconds kMaxRenakInterval = 1'000'000;
  static constexpr Microseconds kMinNakRepeatGap = 5'000;

  enum class Arrival {
    New,           // stored; hand the payload to storage
    Duplicate,     // already had it (counts toward the receiving cost)
    BeyondWindow,  // past the advertised window: dropped, a flow-control violation
    BeyondEnd,     // past the transfer's last block: dropped, a protocol violation
  };

  explicit ReceiveTracker(std::uint64_t window_blocks);

  // The number of blocks, from XFER or from the block that carries the F flag.
  void set_block_count(std::uint64_t blocks);
  // Smoothed RTT, which bounds the reordering window.
  void set_srtt(Microseconds srtt) { srtt_ = srtt; }

  // Block `k` arrived; `original` is attempt 0 (a first send, not a retransmission).
  Arrival on_block(std::uint64_t k, bool original, Microseconds now);

  std::uint64_t frontier() const { return frontier_; }  // every block below it arrived
  std::uint64_t highest() const { return highest_; }    // 1 + the highest block arrived
  std::optional<std::uint64_t> block_count() const { return block_count_; }
  bool complete() const { return block_count_ && frontier_ == *block_count_; }
  std::uint64_t window_blocks() const { return window_; }
  std::uint64_t duplicates() const { return duplicates_; }
  Microseconds reorder_window() const { return reorder_window_; }

  // Appends the lost ranges whose NAK is due at `now`, lowest first, at most `max_ranges`, and
  // schedules each block's next NAK: a block's first NAK is repeated after interval / 6 (a lost
  // NAK would otherwise cost a whole interval; the sender ignores the repeat if its repair is
  // already out), later ones every `interval` (at most 1 s), the caller's estimate of how long a
  // retransmission takes to arrive.
  void collect_due_naks(Microseconds now, Microseconds interval, std::size_t max_ranges,
                        std::vector<BlockRange>& out);
  // Every missing block below highest(), lost or not: the answer to a tail probe.
  void collect_missing(std::size_t max_ranges, std::vector<BlockRange>& out) const;

 private:
  std::size_t slot(std::uint64_t k) const { return static_cast<std::size_t>(k % window_); }
  bool have(std::uint64_t k) const;
  void set_have(std::uint64_t k, bool value);
  bool is_lost(std::uint64_t k, Microseconds now) const;
  // Visits maximal runs of missing blocks in [frontier, highest) that `accept` lets through.
  template <typename Accept, typename Emit>
  void for_each_missing_run(Accept accept, Emit emit) const;

  const std::uint64_t window_;
  SlotBitmap received_;                    // one bit per window slot
  std::vector<Microseconds> noticed_at_;   // when a missing block was first skipped over
  std::vector<Microseconds> next_nak_at_;  // when its next NAK is due
  std::uint64_t frontier_ = 0;
  std::uint64_t highest_ = 0;
  std::optional<std::uint64_t> block_count_;
  std::uint64_t duplicates_ = 0;
  Microseconds srtt_ = 0;
  Microseconds reorder_window_ = 0;  // stays 0 until reordering is seen
};

}  // namespace gridftp::protocol::udpx
