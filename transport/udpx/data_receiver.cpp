#include "transport/udpx/data_receiver.hpp"

#include <algorithm>
#include <chrono>

namespace gridftp::transport::udpx {
namespace {

constexpr std::size_t kMaxNakRanges = 64;  // what one datagram's body holds at worst
constexpr Microseconds kNakCheckPeriod = 1'000;

}  // namespace

Microseconds DataReceiver::storage_clock() const {
  if (settings_.clock != nullptr) return settings_.clock();
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

DataReceiver::DataReceiver(PacketPath& path, BlockSink& sink, std::uint16_t transfer_id,
                           const ReceiverSettings& settings)
    : path_(path),
      sink_(sink),
      transfer_id_(transfer_id),
      settings_(settings),
      tracker_(settings.window_blocks) {
  ranges_.reserve(kMaxNakRanges);
}

wire::CommonHeader DataReceiver::header(wire::PacketType type) const {
  wire::CommonHeader header;
  header.type = type;
  header.transfer_id = transfer_id_;
  header.destination_cid = settings_.peer_connection_id;
  return header;
}

void DataReceiver::fail(wire::CloseCode code) {
  if (state_ == State::Failed || state_ == State::Done) return;
  state_ = State::Failed;
  close_code_ = code;
  owe_close_ = true;
}

void DataReceiver::remember_echo(std::uint64_t packet_number, std::uint64_t tx_time,
                                 Microseconds now) {
  if (have_echo_ && packet_number < echo_packet_number_) return;
  have_echo_ = true;
  echo_packet_number_ = packet_number;
  echo_tx_time_ = tx_time;
  echo_received_at_ = now;
}

wire::Echo DataReceiver::echo(Microseconds now) const {
  if (!have_echo_) return {};
  return {echo_packet_number_, echo_tx_time_,
          static_cast<std::uint64_t>(std::max<Microseconds>(0, now - echo_received_at_))};
}

wire::AckBody DataReceiver::ack_body(Microseconds now) const {
  wire::AckBody ack;
  const std::uint64_t frontier_bytes =
      std::min(shape_.length, tracker_.frontier() * shape_.block_bytes);
  ack.cumulative_offset = shape_.base + frontier_bytes;
  ack.written_offset = ack.cumulative_offset;  // blocks are written as they arrive
  ack.highest_block = tracker_.highest();
  ack.window_blocks = tracker_.window_blocks();
  ack.echo = echo(now);
  return ack;
}

Microseconds DataReceiver::nak_interval() const {
  // A retransmission's round trip: RTT, its variation, and a little for the sender's queue.
  const Microseconds srtt = stats_.srtt > 0 ? stats_.srtt : 100'000;
  return srtt + srtt / 2 + 2'000;
}

void DataReceiver::on_xfer(const wire::XferBody& xfer, Microseconds now) {
  ack_now_ = true;
  if (state_ != State::WaitingForTransfer) return;  // a repeat: our ACK was lost
  if (xfer.block_bytes == 0) {
    fail(wire::CloseCode::ProtocolViolation);
    return;
  }
  shape_ = TransferShape{transfer_id_, xfer.base, xfer.length,
                         static_cast<std::size_t>(xfer.block_bytes)};
  // A stream's end comes with its last block (the F flag, docs/UDPX.md §1.9).
  if (!shape_.is_stream()) tracker_.set_block_count(shape_.block_count());
  state_ = State::Receiving;
  last_feedback_ = now;
  if (tracker_.complete()) {  // an empty transfer
    state_ = State::Closing;
    close_started_ = now;
  }
}

void DataReceiver::on_data(const OpenedPacket& packet, Microseconds now) {
  if (state_ != State::Receiving && state_ != State::Closing) return;
  auto fields = wire::decode_data_fields(packet.front);
  if (!fields || fields->offset < shape_.base ||
      (fields->offset - shape_.base) % shape_.block_bytes != 0) {
    fail(wire::CloseCode::ProtocolViolation);
    return;
  }
  const std::uint64_t block = (fields->offset - shape_.base) / shape_.block_bytes;
  if (shape_.is_stream() && !learn_stream_end(block, packet)) {
    fail(wire::CloseCode::ProtocolViolation);
    return;
  }
  const std::uint64_t expected = std::min<std::uint64_t>(
      shape_.block_bytes, shape_.length - std::min(shape_.length, block * shape_.block_bytes));
  if (block >= shape_.block_count() || packet.body.size() != expected) {
    fail(wire::CloseCode::ProtocolViolation);
    return;
  }
  ++stats_.data_packets;
  ++interval_packets_;
  interval_bytes_ += packet.body.size();
  remember_echo(packet.header.packet_number, fields->tx_time_us, now);
  const std::int64_t queued = delay_.on_packet(now, fields->tx_time_us);
  interval_min_delay_ = interval_min_delay_ < 0 ? queued : std::min(interval_min_delay_, queued);
  interval_delay_sum_ += queued;
  const std::uint64_t highest_before = tracker_.highest();
  switch (tracker_.on_block(block, fields->attempt == 0, now)) {
    case wire::ReceiveTracker::Arrival::New:
      if (block > highest_before) {
        interval_lost_ += block - highest_before;
        stats_.gaps += block - highest_before;
      }
      {
        // A write the sink only buffers is not storage time; the flush that follows is.
        const bool timed = !sink_.absorbs(fields->offset, packet.body.size());
        const Microseconds started = timed ? storage_clock() : 0;
        if (auto written = sink_.write_at(fields->offset, packet.body); !written) {
          storage_error_ = written.error();
          fail(wire::CloseCode::StorageError);
          return;
        }
        storage_.on_write(packet.body.size(), timed ? storage_clock() - started : 0);
      }
      stats_.bytes_written += packet.body.size();
      break;
    case wire::ReceiveTracker::Arrival::Duplicate:
      ++stats_.duplicates;
      ++interval_duplicates_;
      break;
    case wire::ReceiveTracker::Arrival::BeyondWindow:
      break;  // dropped; the sender sends it again once the window reaches it
    case wire::ReceiveTracker::Arrival::BeyondEnd:
      fail(wire::CloseCode::ProtocolViolation);
      return;
  }
  if (state_ == State::Receiving && tracker_.complete()) {
    // CLOSE says every block is written: what the sink still holds goes first.
    if (auto flushed = sink_.flush(); !flushed) {
      storage_error_ = flushed.error();
      fail(wire::CloseCode::StorageError);
      return;
    }
    state_ = State::Closing;
    close_started_ = now;
  }
}

bool DataReceiver::learn_stream_end(std::uint64_t block, const OpenedPacket& packet) {
  const auto bytes = packet.body.size();
  if (!packet.header.final_block) return bytes == shape_.block_bytes;
  // The last block: at most a block's bytes (none only in an empty stream), and nothing
  // received past it.
  if (bytes > shape_.block_bytes || (bytes == 0 && block > 0) || tracker_.highest() > block + 1)
    return false;
  shape_.length = block * shape_.block_bytes + bytes;
  tracker_.set_block_count(block + 1);
  return true;
}

void DataReceiver::on_packet(const OpenedPacket& packet, Microseconds now) {
  switch (packet.header.type) {
    case wire::PacketType::Xfer:
      if (auto xfer = wire::decode_xfer(packet.body);
          xfer && packet.header.transfer_id == transfer_id_) {
        on_xfer(*xfer, now);
      }
      break;
    case wire::PacketType::Data:
      on_data(packet, now);
      break;
    case wire::PacketType::Ping:
      if (auto ping = wire::decode_ping(packet.body)) {
        if (ping->kind == wire::PingKind::TailProbe) {
          // Not before the XFER: the first ACK for its transfer tells the sender the XFER
          // arrived, and it stops repeating it. A probe sent right behind the first DATA, with
          // that XFER lost, left both ends waiting on each other for good.
          if (state_ == State::WaitingForTransfer) break;
          ack_now_ = true;
          full_nak_now_ = true;
          remember_echo(packet.header.packet_number, ping->tx_time_us, now);
        } else if (ping->kind == wire::PingKind::Reply) {
          const auto sample = static_cast<Microseconds>(static_cast<std::uint32_t>(
              static_cast<std::uint32_t>(now) - static_cast<std::uint32_t>(ping->tx_time_us)));
          stats_.srtt = stats_.srtt == 0 ? sample : (7 * stats_.srtt + sample) / 8;
          tracker_.set_srtt(stats_.srtt);
        }
      }
      break;
    case wire::PacketType::CloseAck:
      if (state_ == State::Closing) state_ = State::Done;
      break;
    case wire::PacketType::Close:
      if (auto close = wire::decode_close(packet.body)) {
        owe_close_ack_ = true;
        if (state_ != State::Done) {
          state_ = State::Failed;
          close_code_ =
              close->code == wire::CloseCode::Ok ? wire::CloseCode::ProtocolViolation : close->code;
        }
      }
      break;
    default:
      break;
  }
}

Result<std::size_t> DataReceiver::next_datagram(std::span<std::uint8_t> out, Microseconds now) {
  using Span = std::span<std::uint8_t>;
  if (owe_close_ack_) {
    owe_close_ack_ = false;
    return path_.control(out, header(wire::PacketType::CloseAck),
                         [&](Span body) { return wire::encode_close_ack(close_code_, body); });
  }
  if (owe_close_) {
    owe_close_ = false;
    const wire::CloseBody close{close_code_, stats_.bytes_written, "receiver failed"};
    return path_.control(out, header(wire::PacketType::Close),
                         [&](Span body) { return wire::encode_close(close, body); });
  }
  if (state_ == State::Closing) return closing_datagram(out, now);
  if (state_ != State::Receiving && !ack_now_) return std::size_t{0};
  if (ack_now_ || now - last_ack_ >= settings_.ack_interval) {
    ack_now_ = false;
    last_ack_ = now;
    const auto ack = ack_body(now);
    return path_.control(out, header(wire::PacketType::Ack),
                         [&](Span body) { return wire::encode_ack(ack, body); });
  }
  if (state_ != State::Receiving) return std::size_t{0};
  if (auto nak = nak_datagram(out, now); !nak || *nak > 0) return nak;
  if (now - last_feedback_ >= settings_.feedback_interval) {
    const auto feedback = take_feedback(now);
    return path_.control(out, header(wire::PacketType::Feedback),
                         [&](Span body) { return wire::encode_feedback(feedback, body); });
  }
  if (last_rtt_ping_ < 0 || now - last_rtt_ping_ >= settings_.rtt_ping_interval) {
    last_rtt_ping_ = now;
    const wire::PingBody ping{stats_.data_packets, static_cast<std::uint32_t>(now),
                              wire::PingKind::Keepalive};
    return path_.control(out, header(wire::PacketType::Ping),
                         [&](Span body) { return wire::encode_ping(ping, body); });
  }
  return std::size_t{0};
}

Result<std::size_t> DataReceiver::closing_datagram(std::span<std::uint8_t> out, Microseconds now) {
  using Span = std::span<std::uint8_t>;
  if (now - close_started_ >= settings_.close_give_up) {
    state_ = State::Done;  // everything is written; the sender stopped listening
    return std::size_t{0};
  }
  if (last_close_ >= 0 && now - last_close_ < settings_.close_repeat) return std::size_t{0};
  last_close_ = now;
  const wire::CloseBody close{wire::CloseCode::Ok, shape_.length, {}};
  return path_.control(out, header(wire::PacketType::Close),
                       [&](Span body) { return wire::encode_close(close, body); });
}

Result<std::size_t> DataReceiver::nak_datagram(std::span<std::uint8_t> out, Microseconds now) {
  using Span = std::span<std::uint8_t>;
  ranges_.clear();
  bool complete = false;
  if (full_nak_now_) {
    full_nak_now_ = false;
    tracker_.collect_missing(kMaxNakRanges, ranges_);
    complete = true;
  } else if (tracker_.frontier() < tracker_.highest() && now - last_nak_check_ >= kNakCheckPeriod) {
    last_nak_check_ = now;
    tracker_.collect_due_naks(now, nak_interval(), kMaxNakRanges, ranges_);
  }
  if (!ranges_.empty()) {
    ++stats_.naks_sent;
    return path_.control(out, header(wire::PacketType::Nak), [&](Span body) -> Result<std::size_t> {
      auto encoded = wire::encode_nak({complete}, ranges_, body);
      if (!encoded) return make_error(encoded.error());
      return encoded->bytes;
    });
  }
  return std::size_t{0};
}

wire::FeedbackBody DataReceiver::take_feedback(Microseconds now) {
  const Microseconds interval = now - last_feedback_;
  wire::FeedbackBody feedback;
  feedback.interval_us = static_cast<std::uint64_t>(interval);
  feedback.queue_delay_min_us =
      static_cast<std::uint64_t>(std::max<std::int64_t>(interval_min_delay_, 0));
  feedback.queue_delay_mean_us =
      interval_packets_ == 0 ? 0
                             : static_cast<std::uint64_t>(interval_delay_sum_) / interval_packets_;
  feedback.receive_rate = interval_bytes_ * 1'000'000 / static_cast<std::uint64_t>(interval);
  feedback.packets_received = interval_packets_;
  feedback.packets_lost = interval_lost_;
  feedback.packets_duplicate = interval_duplicates_;
  const auto storage = storage_.end_interval(interval);
  feedback.disk_rate = storage.rate;
  // The sender paces at the lower of its own rate and this cap: the lower of ours.
  const auto rate_cap = static_cast<std::uint64_t>(rate_cap_);
  feedback.disk_cap = storage.cap == 0 ? rate_cap
                      : rate_cap == 0  ? storage.cap
                                       : std::min(storage.cap, rate_cap);
  feedback.echo = echo(now);
  last_feedback_ = now;
  interval_min_delay_ = -1;
  interval_delay_sum_ = 0;
  interval_packets_ = interval_bytes_ = interval_duplicates_ = interval_lost_ = 0;
  return feedback;
}

Microseconds DataReceiver::next_wakeup(Microseconds now) const {
  if (owe_close_ack_ || owe_close_ || ack_now_ || full_nak_now_) return now;
  if (state_ == State::Closing) {
    return std::min(close_started_ + settings_.close_give_up,
                    last_close_ < 0 ? now : last_close_ + settings_.close_repeat);
  }
  if (state_ != State::Receiving) return now + 1'000'000;
  Microseconds wake =
      std::min({last_ack_ + settings_.ack_interval, last_feedback_ + settings_.feedback_interval,
                last_rtt_ping_ + settings_.rtt_ping_interval});
  if (tracker_.frontier() < tracker_.highest()) {
    wake = std::min(wake, last_nak_check_ + kNakCheckPeriod);
  }
  return std::max(wake, now);
}

}  // namespace gridftp::transport::udpx
