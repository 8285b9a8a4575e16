#include "transport/udpx/data_sender.hpp"

#include <algorithm>
#include <limits>

#include "protocol/udpx/udpx_errors.hpp"

namespace gridftp::transport::udpx {
namespace {

constexpr Microseconds kXferRepeat = 200'000;
// Nothing from the receiver for 4 RTTs (at least 250 ms; FEEDBACK comes every 20 ms): the path
// is down or the peer gone. DATA sent now would be lost and sent again, so the sender probes
// instead, first after an RTT, then twice as long each time up to a second (docs/UDPX.md §3.3).
constexpr Microseconds kSilenceFloor = 250'000;
constexpr Microseconds kSilenceProbeCeiling = 1'000'000;
constexpr double kMicro = 1e-6;
constexpr double kWakeQuantum = 250e-6;  // seconds of the pacing rate per wakeup

}  // namespace

DataSender::DataSender(PacketPath& path, BlockSource& source, TransferShape shape,
                       const SenderSettings& settings)
    : path_(path),
      source_(source),
      shape_(shape),
      announced_length_(shape.length),
      settings_(settings),
      scheduler_(settings.window_blocks),
      rate_(settings.rate) {
  if (!shape.is_stream()) scheduler_.set_block_count(shape.block_count());
}

void DataSender::on_echo(const wire::Echo& echo, Microseconds now) {
  if (echo.tx_time_us == 0 && echo.packet_number == 0) return;  // nothing echoed yet
  const auto now32 = static_cast<std::uint32_t>(now);
  const auto elapsed =
      static_cast<std::uint32_t>(now32 - static_cast<std::uint32_t>(echo.tx_time_us));
  if (elapsed < echo.ack_delay_us) return;
  const double rtt = static_cast<double>(elapsed - echo.ack_delay_us) * kMicro;
  rate_.on_rtt_sample(std::max(rtt, 1e-5));
  // The scheduler's in-flight allowance (srtt + 4 rttvar) decides whether a repeated NAK is
  // obeyed: with a guessed rttvar of srtt/4 it was 2 srtt, and a block lost twice on a 300 ms
  // path waited a whole NAK backoff step (1.5 s) while the window filled behind it.
  scheduler_.set_rtt(static_cast<Microseconds>(rate_.srtt() / kMicro),
                     static_cast<Microseconds>(rate_.rttvar() / kMicro));
}

void DataSender::on_feedback(const wire::FeedbackBody& feedback, Microseconds now) {
  wire::RateSample sample;
  sample.now = static_cast<double>(now) * kMicro;
  sample.interval = static_cast<double>(std::max<std::uint64_t>(feedback.interval_us, 1)) * kMicro;
  sample.queue_delay_min = static_cast<double>(feedback.queue_delay_min_us) * kMicro;
  sample.delivery_rate = static_cast<double>(feedback.receive_rate);
  sample.packets = feedback.packets_received;
  sample.lost = feedback.packets_lost;
  storage_cap_ = static_cast<double>(feedback.disk_cap);
  if (storage_cap_ > 0 &&
      (stats_.lowest_storage_cap == 0 || storage_cap_ < stats_.lowest_storage_cap))
    stats_.lowest_storage_cap = storage_cap_;
  // Held back by the receiver's storage, not by the network: the network saw less than the
  // controller's rate, which says nothing about the path.
  sample.app_limited = idle_with_tokens_ || (storage_cap_ > 0 && storage_cap_ < rate_.rate());
  const double since =
      static_cast<double>(std::max<Microseconds>(now - last_feedback_, 1)) * kMicro;
  sample.sending_rate = static_cast<double>(bytes_since_feedback_) / since;
  rate_.on_feedback(sample);
  if (settings_.redundant_tail_rtts > 0) {
    const double tail_bytes = settings_.redundant_tail_rtts * rate_.rate() * rate_.srtt();
    scheduler_.set_redundant_tail(std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(
               tail_bytes / static_cast<double>(std::max<std::size_t>(shape_.block_bytes, 1)))));
  }
  if (stats_.startup_ended_at < 0 && rate_.phase() != wire::RateController::Phase::Startup)
    stats_.startup_ended_at = now;
  stats_.peer_lost += feedback.packets_lost;
  bytes_since_feedback_ = 0;
  last_feedback_ = now;
  idle_with_tokens_ = false;
}

void DataSender::on_packet(const OpenedPacket& packet, Microseconds now) {
  nothing_to_send_ = false;  // an ACK or NAK may open the window or queue a retransmission
  last_heard_ = now;
  silence_probe_gap_ = 0;
  if (state_ == State::Done || state_ == State::Failed) {
    if (packet.header.type == wire::PacketType::Close) owe_close_ack_ = true;
    return;
  }
  switch (packet.header.type) {
    case wire::PacketType::Ack:
      if (auto ack = wire::decode_ack(packet.body)) {
        if (packet.header.transfer_id == shape_.transfer_id) xfer_acknowledged_ = true;
        const auto block = shape_.block_bytes;
        const auto frontier =
            (ack->cumulative_offset - std::min(ack->cumulative_offset, shape_.base)) / block;
        scheduler_.on_ack(frontier, ack->window_blocks, ack->highest_block, now);
        source_.release_below(shape_.base + scheduler_.acked_frontier() * block);
        on_echo(ack->echo, now);
      }
      break;
    case wire::PacketType::Nak:
      if (wire::decode_nak(packet.body, nak_ranges_)) {
        scheduler_.on_nak(nak_ranges_, now);
      }
      break;
    case wire::PacketType::Feedback:
      if (auto feedback = wire::decode_feedback(packet.body)) {
        on_echo(feedback->echo, now);
        on_feedback(*feedback, now);
      }
      break;
    case wire::PacketType::Ping:
      if (auto ping = wire::decode_ping(packet.body);
          ping && ping->kind == wire::PingKind::Keepalive) {
        owe_ping_reply_ = true;
        ping_to_answer_ = *ping;
      }
      break;
    case wire::PacketType::Close:
      if (auto close = wire::decode_close(packet.body)) {
        // The receiver's CLOSE(Ok) is what ends a transfer: it holds every byte, even if its
        // last ACKs to say so were lost.
        owe_close_ack_ = true;
        close_code_ = close->code;
        state_ = close->code == wire::CloseCode::Ok ? State::Done : State::Failed;
      }
      break;
    default:
      break;  // nothing else is meant for a data sender
  }
}

SenderStats DataSender::stats() const {
  SenderStats out = stats_;
  out.rate = rate_.rate();
  out.second_copies = scheduler_.second_copies();
  out.storage_cap = storage_cap_;
  out.srtt = rate_.srtt();
  return out;
}

wire::CommonHeader DataSender::header(wire::PacketType type) const {
  wire::CommonHeader header;
  header.type = type;
  header.transfer_id = shape_.transfer_id;
  header.destination_cid = settings_.peer_connection_id;
  return header;
}

double DataSender::pacing_rate() const {
  return storage_cap_ > 0 ? std::min(rate_.rate(), storage_cap_) : rate_.rate();
}

void DataSender::refill(Microseconds now) {
  const double burst =
      std::max(2.0 * settings_.rate.packet_bytes, pacing_rate() * 1e-3);  // at most 1 ms at once
  tokens_ =
      std::min(burst, tokens_ + pacing_rate() * static_cast<double>(now - tokens_at_) * kMicro);
  tokens_at_ = now;
}

Result<std::size_t> DataSender::data_packet(std::span<std::uint8_t> out,
                                            const wire::SendScheduler::Next& next,
                                            Microseconds now) {
  const std::uint64_t offset = shape_.base + next.block * shape_.block_bytes;
  std::size_t wanted = static_cast<std::size_t>(
      std::min<std::uint64_t>(shape_.block_bytes, shape_.base + shape_.length - offset));
  if (out.size() < wire::kFrontBytes + wanted + crypto::kTagBytes) {
    return make_error(wire::Errc::BufferTooSmall);
  }
  auto read = source_.read_at(offset, out.subspan(wire::kFrontBytes, wanted));
  if (read && shape_.is_stream()) wanted = learn_stream_end(offset, wanted);
  if (!read) storage_error_ = read.error();
  if (!read || *read != wanted || wanted == 0) {
    // The source shrank or failed: the transfer cannot complete (docs/UDPX.md §1.3, code 2).
    owe_close_ = true;
    close_code_ = wire::CloseCode::StorageError;
    state_ = State::Failed;
    return std::size_t{0};
  }
  wire::CommonHeader front = header(wire::PacketType::Data);
  front.packet_number = path_.take_packet_number();
  front.encrypted = settings_.data_protection == crypto::BodyProtection::Encrypt;
  front.retransmission = next.kind == wire::SendScheduler::Next::Kind::Retransmit;
  front.final_block = next.block + 1 == shape_.block_count();
  const wire::DataFields fields{offset, static_cast<std::uint32_t>(now), next.attempt};
  if (auto written = wire::encode_data_front(front, fields, out); !written) {
    return make_error(written.error());
  }
  auto sealed = path_.seal(out, wire::PacketType::Data, wanted, front.packet_number,
                           settings_.data_protection);
  if (!sealed) return make_error(sealed.error());
  scheduler_.on_sent(next, now);
  ++stats_.data_packets;
  stats_.payload_bytes += wanted;
  if (front.retransmission) ++stats_.retransmissions;
  if (next.kind == wire::SendScheduler::Next::Kind::New && next.block + 1 == shape_.block_count())
    stats_.last_new_block_at = now;
  bytes_since_feedback_ += *sealed;
  tokens_ -= static_cast<double>(*sealed);
  return sealed;
}

Result<std::size_t> DataSender::next_datagram(std::span<std::uint8_t> out, Microseconds now) {
  // Replies first, unpaced: they are few and the receiver waits on them.
  if (owe_close_ack_) {
    owe_close_ack_ = false;
    return path_.control(
        out, header(wire::PacketType::CloseAck),
        [&](std::span<std::uint8_t> body) { return wire::encode_close_ack(close_code_, body); });
  }
  if (owe_close_) {
    owe_close_ = false;
    const wire::CloseBody close{close_code_, 0, "source read failed"};
    return path_.control(out, header(wire::PacketType::Close), [&](std::span<std::uint8_t> body) {
      return wire::encode_close(close, body);
    });
  }
  if (owe_ping_reply_) {
    owe_ping_reply_ = false;
    wire::PingBody reply = ping_to_answer_;
    reply.kind = wire::PingKind::Reply;
    return path_.control(out, header(wire::PacketType::Ping), [&](std::span<std::uint8_t> body) {
      return wire::encode_ping(reply, body);
    });
  }
  // XFER goes first, and again every 200 ms until an ACK names its transfer. DATA follows it at
  // once instead of a round trip later: a receiver drops DATA that overtakes a lost XFER, and
  // its NAKs bring those blocks back once a repeat has arrived (docs/UDPX.md §6).
  const bool xfer_due = last_xfer_ < 0 || now - last_xfer_ >= kXferRepeat;
  if (!xfer_acknowledged_ && xfer_due &&
      (state_ == State::Announcing || state_ == State::Sending)) {
    last_xfer_ = now;
    if (state_ == State::Announcing) {
      state_ = State::Sending;
      tokens_at_ = now;
      stats_.sending_since = now;
    }
    const wire::XferBody xfer{shape_.base, announced_length_, shape_.block_bytes, 0};
    return path_.control(out, header(wire::PacketType::Xfer), [&](std::span<std::uint8_t> body) {
      return wire::encode_xfer(xfer, body);
    });
  }
  if (state_ != State::Sending) return std::size_t{0};
  refill(now);
  nothing_to_send_ = false;
  if (tokens_ < settings_.rate.packet_bytes) return std::size_t{0};
  if (receiver_silent(now)) {
    nothing_to_send_ = true;
    if (now < silence_probe_at_) return std::size_t{0};
    const auto srtt = static_cast<Microseconds>(rate_.srtt() / kMicro);
    silence_probe_gap_ = std::min(kSilenceProbeCeiling, silence_probe_gap_ == 0
                                                            ? std::max<Microseconds>(srtt, 10'000)
                                                            : 2 * silence_probe_gap_);
    silence_probe_at_ = now + silence_probe_gap_;
    return tail_probe(out, now);
  }
  const auto next = scheduler_.next(now);
  switch (next.kind) {
    case wire::SendScheduler::Next::Kind::Retransmit:
    case wire::SendScheduler::Next::Kind::New:
      return data_packet(out, next, now);
    case wire::SendScheduler::Next::Kind::TailProbe:
      scheduler_.on_sent(next, now);
      return tail_probe(out, now);
    case wire::SendScheduler::Next::Kind::Wait:
    case wire::SendScheduler::Next::Kind::Done:
      // Held by the receiver's window or waiting for the last ACKs: not app-limited. The
      // controller caps an app-limited rate at 1.25 x what was sent, which during a window stall
      // would throw away the rate it took many RTTs to find.
      nothing_to_send_ = true;
      return std::size_t{0};
  }
  return std::size_t{0};
}

std::size_t DataSender::learn_stream_end(std::uint64_t offset, std::size_t wanted) {
  const auto end = source_.end();
  if (!end) return wanted;
  // From here on the transfer has a length: this block or an earlier one is the last.
  shape_.length = std::max(*end, shape_.base) - shape_.base;
  scheduler_.set_block_count(shape_.block_count());
  return offset >= *end ? 0
                        : static_cast<std::size_t>(std::min<std::uint64_t>(wanted, *end - offset));
}

bool DataSender::receiver_silent(Microseconds now) const {
  if (last_heard_ < 0 || rate_.srtt() <= 0) return false;
  const auto limit = std::max(kSilenceFloor, static_cast<Microseconds>(4 * rate_.srtt() / kMicro));
  return now - last_heard_ > limit;
}

Result<std::size_t> DataSender::tail_probe(std::span<std::uint8_t> out, Microseconds now) {
  tokens_ -= settings_.rate.packet_bytes;
  const wire::PingBody probe{stats_.data_packets, static_cast<std::uint32_t>(now),
                             wire::PingKind::TailProbe};
  return path_.control(out, header(wire::PacketType::Ping), [&](std::span<std::uint8_t> body) {
    return wire::encode_ping(probe, body);
  });
}

Microseconds DataSender::next_wakeup(Microseconds now) const {
  if (owe_close_ack_ || owe_close_ || owe_ping_reply_) return now;
  if (state_ == State::Announcing) return now;
  if (state_ != State::Sending) return now + 1'000'000;
  const Microseconds next_xfer =
      xfer_acknowledged_ ? std::numeric_limits<Microseconds>::max() : last_xfer_ + kXferRepeat;
  // Waiting on ACKs or the next probe: look again within a millisecond.
  if (nothing_to_send_) return std::min(next_xfer, now + 1'000);
  if (tokens_ >= settings_.rate.packet_bytes) return now;
  // Wake for a few datagrams' worth, not for each: at 300 Mb/s one is due every 39 µs, and a
  // wakeup per datagram cost more CPU than the datagram itself (bench/README.md, "Waking for a
  // quantum"). A quarter of a millisecond of the pacing rate stays well inside the 1 ms burst
  // refill() allows.
  const double quantum = std::max(settings_.rate.packet_bytes, pacing_rate() * kWakeQuantum);
  const double missing = quantum - tokens_;
  const double wait_us = missing / std::max(pacing_rate(), 1.0) / kMicro;
  return std::min(next_xfer,
                  now + std::clamp<Microseconds>(static_cast<Microseconds>(wait_us), 1, 10'000));
}

}  // namespace gridftp::transport::udpx
