// The data sender's choice of what to send next (docs/UDPX.md §3.3): retransmissions of
// NAKed blocks first, lowest first, then (near the end) a second copy of each of them, then new
// blocks inside the receiver's window, then a tail probe once per probe timeout when everything
// is out but not everything is acknowledged. A NAK
// for a block whose last copy may still be in flight is ignored, so each loss costs one
// retransmission, not one per NAK. Pure: time is an argument and every array is sized once for
// the window, so sending allocates nothing. How fast to send is the rate controller's business;
// this class only says what.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/udpx/control_bodies.hpp"
#include "protocol/udpx/receive_tracker.hpp"
#include "protocol/udpx/slot_bitmap.hpp"

namespace gridftp::protocol::udpx {

class SendScheduler {
 public:
  static constexpr Microseconds kMaxAckDelay = 25'000;
  static constexpr Microseconds kMaxProbeTimeout = 2'000'000;

  struct Next {
    enum class Kind {
      Retransmit,  // send block `block` again (attempt says which time)
      New,         // send block `block` for the first time
      TailProbe,   // send PING(tail): the receiver answers with ACK + complete NAK
      Wait,        // nothing to send now (window full, or waiting for ACKs before the next probe)
      Done,        // every block acknowledged
    };
    Kind kind = Kind::Wait;
    std::uint64_t block = 0;
    std::uint8_t attempt = 0;  // 0 for a first send; saturates at 255
    bool second_copy = false;  // Retransmit: the tail's second copy of a repair
  };

  // Most second copies waiting at once; more repairs than this near the end go once only.
  static constexpr std::size_t kMaxSecondCopies = 16384;

  // `window_blocks`: how many blocks past the acknowledged frontier may be outstanding; the
  // receiver's ACKs may lower it (its free window), never raise it above this.
  explicit SendScheduler(std::uint64_t window_blocks);

  // The transfer's block count; unknown (a stream) until set.
  void set_block_count(std::uint64_t blocks) { block_count_ = blocks; }
  void set_rtt(Microseconds srtt, Microseconds rttvar);
  // Second copies near the end (0: none). `blocks` is a round trip's worth of data: a first
  // repair sent while no more than that many new blocks remain goes twice, and so does a later
  // repair while three times that remain. The transfer ends when its slowest block arrives and
  // each lost repair costs a re-NAK round trip (1.5 RTT): on a 300 ms / 5 % path the end waited
  // over a second for blocks lost two and three times. Elsewhere a lost repair is hidden behind
  // new data and a second copy would only cost a duplicate.
  void set_redundant_tail(std::uint64_t blocks) { redundant_tail_ = blocks; }

  // An ACK: every block below `frontier` arrived, `free_window` more may be sent past it, and
  // `highest` is one past the highest block the receiver holds. Once every block is out (or the
  // window is shut), blocks at or above `highest` sent long enough ago to have arrived are
  // queued again: losses at the very end leave no later block behind them to reveal a gap, so
  // no NAK could name them.
  void on_ack(std::uint64_t frontier, std::uint64_t free_window, std::uint64_t highest,
              Microseconds now);
  // A NAK's ranges. Blocks already acknowledged, already queued, or sent less than
  // srtt + 4·rttvar + 2 ms ago (their last copy may still arrive) are not queued again.
  void on_nak(std::span<const BlockRange> ranges, Microseconds now);

  Next next(Microseconds now);
  // The caller sent what next() chose (for TailProbe, `block` is ignored).
  void on_sent(const Next& sent, Microseconds now);

  std::uint64_t acked_frontier() const { return acked_; }
  std::uint64_t next_new_block() const { return next_new_; }
  std::uint64_t retransmissions() const { return retransmissions_; }
  std::uint64_t suppressed_naks() const { return suppressed_; }
  std::uint64_t second_copies() const { return second_copies_sent_; }
  std::size_t queued() const { return queued_count_; }
  Microseconds probe_timeout() const;

 private:
  std::size_t slot(std::uint64_t k) const { return static_cast<std::size_t>(k % window_); }
  bool queued(std::uint64_t k) const;
  void set_queued(std::uint64_t k, bool value);
  std::optional<std::uint64_t> lowest_queued();
  bool everything_sent() const { return block_count_ && next_new_ >= *block_count_; }
  bool sent_long_ago(std::uint64_t k, Microseconds now) const;
  void queue(std::uint64_t k);
  bool goes_twice(std::uint8_t attempt) const;
  std::optional<std::uint64_t> next_second_copy();

  const std::uint64_t window_;
  SlotBitmap queued_bits_;               // one bit per window slot: NAKed, waiting to go again
  std::vector<Microseconds> last_sent_;  // when each block's newest copy left
  std::vector<std::uint8_t> attempts_;   // copies sent after the first
  std::size_t queued_count_ = 0;
  std::uint64_t queue_low_ = 0;  // no queued block lies below it
  std::optional<std::uint64_t> block_count_;
  std::uint64_t acked_ = 0;
  std::uint64_t free_window_;
  std::uint64_t next_new_ = 0;
  Microseconds srtt_ = 100'000;  // RFC 9002's initial RTT would be 333 ms; UDPX measures first
  Microseconds rttvar_ = 50'000;
  Microseconds last_probe_ = 0;
  bool probed_ = false;
  unsigned probes_unanswered_ = 0;
  std::uint64_t retransmissions_ = 0;
  std::uint64_t suppressed_ = 0;
  std::uint64_t redundant_tail_ = 0;
  std::vector<std::uint64_t> second_copies_;  // repairs to send once more, oldest first
  std::size_t second_copies_head_ = 0;
  std::uint64_t second_copies_sent_ = 0;
};

}  // namespace gridftp::protocol::udpx
