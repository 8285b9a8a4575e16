// The receiving end of one UDPX transfer, without I/O (docs/UDPX.md §3.2, §2.2): it learns the
// transfer from XFER, writes each new block where it belongs, and answers with ACKs (progress,
// window, an echo for the sender's RTT), NAKs of lost blocks as they fall due, FEEDBACK with the
// queuing delay and receive rate for the sender's controller, and, once every block is written,
// CLOSE until the sender's CLOSE_ACK. Same shape as DataSender: packets in, datagrams out, time
// an argument.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/core/result.hpp"
#include "protocol/udpx/control_bodies.hpp"
#include "protocol/udpx/queuing_delay.hpp"
#include "protocol/udpx/receive_tracker.hpp"
#include "protocol/udpx/storage_pace.hpp"
#include "transport/udpx/block_io.hpp"
#include "transport/udpx/packet_path.hpp"

namespace gridftp::transport::udpx {

struct ReceiverSettings {
  std::uint64_t window_blocks = 262144;     // 368 MB, as the sender's
  Microseconds ack_interval = 2'000;        // at most this long between ACKs while data flows
  Microseconds feedback_interval = 10'000;  // FEEDBACK period
  Microseconds rtt_ping_interval = 100'000;
  Microseconds close_repeat = 50'000;
  Microseconds close_give_up = 3'000'000;  // stop repeating CLOSE; the data is all written
  std::uint32_t peer_connection_id = 0;
  // Times storage writes for the storage cap (docs/UDPX.md §2.4); null: the steady clock.
  Microseconds (*clock)() = nullptr;
};

struct ReceiverStats {
  std::uint64_t data_packets = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t naks_sent = 0;
  // Blocks skipped by a first transmission that arrived past them: their first copies were lost
  // (or are late), the receiver's view of the path's loss.
  std::uint64_t gaps = 0;
  Microseconds srtt = 0;
};

class DataReceiver {
 public:
  enum class State { WaitingForTransfer, Receiving, Closing, Done, Failed };

  DataReceiver(PacketPath& path, BlockSink& sink, std::uint16_t transfer_id,
               const ReceiverSettings& settings);

  void on_packet(const OpenedPacket& packet, Microseconds now);
  Result<std::size_t> next_datagram(std::span<std::uint8_t> out, Microseconds now);
  Microseconds next_wakeup(Microseconds now) const;

  State state() const { return state_; }
  wire::CloseCode close_code() const { return close_code_; }
  const ReceiverStats& stats() const { return stats_; }
  // The sink's own error, when one ended the transfer (close code 2).
  std::error_code storage_error() const { return storage_error_; }
  // Bytes/s the sender is asked not to exceed (SITE UDPX RATE on a receiving server, or its share
  // of the server-wide cap), carried by FEEDBACK beside the storage cap; 0: none.
  void set_rate_cap(double bytes_per_second) { rate_cap_ = bytes_per_second; }
  // The transfer as announced (valid from Receiving on); a stream's length is kUnknownLength
  // until its last block arrived.
  const TransferShape& shape() const { return shape_; }

 private:
  wire::CommonHeader header(wire::PacketType type) const;
  void on_xfer(const wire::XferBody& xfer, Microseconds now);
  void on_data(const OpenedPacket& packet, Microseconds now);
  // A stream's DATA (docs/UDPX.md §1.9): every block but the last is whole; the last (F flag)
  // sets the length. False for a block that breaks those rules.
  bool learn_stream_end(std::uint64_t block, const OpenedPacket& packet);
  void remember_echo(std::uint64_t packet_number, std::uint64_t tx_time, Microseconds now);
  wire::Echo echo(Microseconds now) const;
  wire::AckBody ack_body(Microseconds now) const;
  // next_datagram's cases: while closing (CLOSE repeated until the sender stops listening), a
  // NAK when ranges are due (0 when none), and the interval's feedback, which starts a new one.
  Result<std::size_t> closing_datagram(std::span<std::uint8_t> out, Microseconds now);
  Result<std::size_t> nak_datagram(std::span<std::uint8_t> out, Microseconds now);
  wire::FeedbackBody take_feedback(Microseconds now);
  Microseconds nak_interval() const;
  void fail(wire::CloseCode code);
  Microseconds storage_clock() const;

  PacketPath& path_;
  BlockSink& sink_;
  const std::uint16_t transfer_id_;
  const ReceiverSettings settings_;
  TransferShape shape_;
  wire::ReceiveTracker tracker_;
  wire::QueuingDelayEstimator delay_;
  wire::StoragePace storage_;
  double rate_cap_ = 0;
  State state_ = State::WaitingForTransfer;
  wire::CloseCode close_code_ = wire::CloseCode::Ok;
  std::error_code storage_error_;

  bool ack_now_ = false;        // XFER or a tail probe: answer at once
  bool full_nak_now_ = false;   // a tail probe: name every missing block
  bool owe_close_ack_ = false;  // the sender closed; confirm it
  bool owe_close_ = false;      // we failed; tell the sender why
  Microseconds last_nak_check_ = 0;
  Microseconds last_ack_ = 0;
  Microseconds last_feedback_ = 0;
  Microseconds last_rtt_ping_ = -1;
  Microseconds close_started_ = -1;
  Microseconds last_close_ = -1;
  // The newest packet from the sender, echoed for its RTT sample.
  std::uint64_t echo_packet_number_ = 0;
  std::uint64_t echo_tx_time_ = 0;
  Microseconds echo_received_at_ = 0;
  bool have_echo_ = false;
  // This FEEDBACK interval's figures.
  std::int64_t interval_min_delay_ = -1;
  std::int64_t interval_delay_sum_ = 0;
  std::uint64_t interval_packets_ = 0;
  std::uint64_t interval_bytes_ = 0;
  std::uint64_t interval_duplicates_ = 0;
  std::uint64_t interval_lost_ = 0;
  std::vector<wire::BlockRange> ranges_;  // reused for every NAK
  ReceiverStats stats_;
};

}  // namespace gridftp::transport::udpx
