// The sending end of one UDPX transfer, without I/O (docs/UDPX.md §3.3, §2.3): it announces the
// transfer (XFER until acknowledged), then hands out sealed DATA packets at the rate the
// controller sets, retransmissions first, tail probes when everything is out, and ends on the
// receiver's CLOSE. Received packets go in through on_packet, datagrams to send come out of
// next_datagram, written in place into the caller's buffer; time is an argument, so the engine
// that owns the socket decides when to ask, and tests can drive it in virtual time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/core/result.hpp"
#include "protocol/udpx/control_bodies.hpp"
#include "protocol/udpx/rate_controller.hpp"
#include "protocol/udpx/send_scheduler.hpp"
#include "transport/udpx/block_io.hpp"
#include "transport/udpx/packet_path.hpp"

namespace gridftp::transport::udpx {

struct SenderSettings {
  wire::RateSettings rate;
  // 368 MB: 10 BDPs at 1 Gb/s and 300 ms. A block lost several times holds the frontier for
  // as many retransmission round trips; the window must outlast that or the sender stalls.
  std::uint64_t window_blocks = 262144;
  // Repairs near the end go twice (docs/UDPX.md §3.3): first repairs while this many round
  // trips of data at the current rate remain, later ones while three times as many do; 0 sends
  // each repair once.
  double redundant_tail_rtts = 1;
  crypto::BodyProtection data_protection = crypto::BodyProtection::Encrypt;
  std::uint32_t peer_connection_id = 0;
};

struct SenderStats {
  std::uint64_t data_packets = 0;
  std::uint64_t retransmissions = 0;  // second copies included
  std::uint64_t second_copies = 0;    // repairs sent twice near the end (docs/UDPX.md §3.3)
  std::uint64_t payload_bytes = 0;    // retransmissions included
  double rate = 0;                    // the controller's rate, bytes/s
  double srtt = 0;                    // seconds
  std::uint64_t peer_lost = 0;        // losses the receiver reported
  double storage_cap = 0;             // the receiver's storage pace now, bytes/s (0: none)
  // The lowest storage pace the receiver asked for during the transfer (0: never capped). The
  // cap is lifted once storage keeps up again, often before the transfer ends.
  double lowest_storage_cap = 0;
  // The transfer's timeline, on the caller's clock (-1: not yet): where the time of a long,
  // lossy transfer goes (Startup, the steady data phase, the repairs after the last new block).
  Microseconds sending_since = -1;  // the first XFER, which DATA follows at once
  Microseconds startup_ended_at = -1;
  Microseconds last_new_block_at = -1;
};

class DataSender {
 public:
  enum class State { Announcing, Sending, Done, Failed };

  DataSender(PacketPath& path, BlockSource& source, TransferShape shape,
             const SenderSettings& settings);

  void on_packet(const OpenedPacket& packet, Microseconds now);
  // The next datagram due at `now`, sealed, in `out` (at least the path's datagram size);
  // 0 bytes when nothing is due.
  Result<std::size_t> next_datagram(std::span<std::uint8_t> out, Microseconds now);
  // When next_datagram may next have something, if nothing arrives before.
  Microseconds next_wakeup(Microseconds now) const;

  State state() const { return state_; }
  wire::CloseCode close_code() const { return close_code_; }
  // Counters, with the controller's current rate and smoothed RTT.
  SenderStats stats() const;
  // The source's own error, when one ended the transfer (close code 2).
  std::error_code storage_error() const { return storage_error_; }
  void set_target_rate(double bytes_per_second) { rate_.set_target(bytes_per_second); }
  // The target the handshake settled on, before any change mid-transfer.
  double negotiated_target_rate() const { return settings_.rate.target; }
  // File bytes the receiver holds without a gap, as its ACKs say.
  // The transfer's bytes: a stream's once its end is known (kUnknownLength before).
  std::uint64_t length() const { return shape_.length; }
  std::uint64_t acknowledged_bytes() const {
    return std::min(shape_.length, scheduler_.acked_frontier() * shape_.block_bytes);
  }

 private:
  wire::CommonHeader header(wire::PacketType type) const;
  Result<std::size_t> data_packet(std::span<std::uint8_t> out,
                                  const wire::SendScheduler::Next& next, Microseconds now);
  void on_echo(const wire::Echo& echo, Microseconds now);
  void on_feedback(const wire::FeedbackBody& feedback, Microseconds now);
  void refill(Microseconds now);
  // What pacing uses: the controller's rate, held to the receiver's storage cap when it sets one.
  double pacing_rate() const;
  bool receiver_silent(Microseconds now) const;
  Result<std::size_t> tail_probe(std::span<std::uint8_t> out, Microseconds now);
  // A stream's block at `offset` was read: once the source knows its end, the transfer's length
  // and block count are set. Returns the block's bytes (0: it lies past the end).
  std::size_t learn_stream_end(std::uint64_t offset, std::size_t wanted);

  PacketPath& path_;
  BlockSource& source_;
  // A stream's (docs/UDPX.md §1.9) length is learned from the source as its end is read.
  TransferShape shape_;
  const std::uint64_t announced_length_;  // what XFER says: kUnknownLength for a stream
  const SenderSettings settings_;
  wire::SendScheduler scheduler_;
  wire::RateController rate_;
  State state_ = State::Announcing;
  wire::CloseCode close_code_ = wire::CloseCode::Ok;
  std::error_code storage_error_;
  // Replies owed to the receiver, sent before anything paced.
  bool owe_close_ack_ = false;
  bool owe_ping_reply_ = false;
  wire::PingBody ping_to_answer_;
  bool owe_close_ = false;  // our own CLOSE after a storage error
  Microseconds last_xfer_ = -1;
  bool xfer_acknowledged_ = false;  // an ACK named our transfer: XFER need not go again
  // Pacing: bytes we may send now, refilled at the controller's rate.
  double tokens_ = 0;
  Microseconds tokens_at_ = 0;
  bool idle_with_tokens_ = false;  // had rate to spare but nothing to send (app-limited)
  bool nothing_to_send_ = false;   // the scheduler said Wait at the last ask
  // A receiver gone silent (an outage): no DATA, only probes, spaced further each time.
  Microseconds last_heard_ = -1;
  Microseconds silence_probe_at_ = 0;
  Microseconds silence_probe_gap_ = 0;
  // What we sent since the last FEEDBACK, for the controller's sending rate.
  std::uint64_t bytes_since_feedback_ = 0;
  Microseconds last_feedback_ = 0;
  std::vector<wire::BlockRange> nak_ranges_;  // reused for every NAK
  double storage_cap_ = 0;                    // bytes/s, from FEEDBACK (docs/UDPX.md §2.4)
  SenderStats stats_;
};

}  // namespace gridftp::transport::udpx
