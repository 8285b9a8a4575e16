#include "transport/udpx/endpoint_runner.hpp"

#include <algorithm>
#include <array>
#include <ctime>
#include <type_traits>
#include <utility>
#include <vector>

#include <poll.h>

namespace gridftp::transport::udpx {
namespace {

constexpr std::size_t kBatch = 64;
constexpr std::size_t kDatagramBytes = 2048;  // above the largest UDPX datagram (1452 by default)
// After the end, a sender answers a CLOSE again until the peer has been quiet this long: the
// receiver repeats CLOSE every 50 ms until a CLOSE_ACK reaches it, so a lost one is made up for.
constexpr Microseconds kCloseQuiet = 200'000;
constexpr Microseconds kCloseLingerMax = 1'000'000;
// A receiver that took only a few datagrams at its last wake lets the next ones gather for this
// long before it reads again (docs/UDPX.md §6, endpoint_runner): at a paced rate they arrive one by
// one, and a wake per datagram cost it a third of a core at 300 Mb/s. The rate law uses each
// interval's smallest queuing delay, and the last datagram before each read is timed within one
// datagram's spacing (39 µs at 300 Mb/s), so the wait moves that figure by little; ACKs and NAKs
// keep their own deadlines. A busy receiver (kSparseWake datagrams or more per wake) never waits.
constexpr Microseconds kReceiveQuantum = 250;
constexpr std::size_t kSparseWake = 16;

// Whether the transfer's outcome is known: a sender done or failed; a receiver failed, or
// with every block written (Closing: its CLOSE went out and awaits the sender's CLOSE_ACK).
template <typename Endpoint>
bool outcome_known(const Endpoint& endpoint) {
  using State = typename Endpoint::State;
  if constexpr (!std::is_same_v<Endpoint, DataSender>) {
    if (endpoint.state() == State::Closing) return true;
  }
  return endpoint.state() == State::Done || endpoint.state() == State::Failed;
}

timespec to_timespec(Microseconds span) {
  return {static_cast<std::time_t>(span / 1'000'000),
          static_cast<long>((span % 1'000'000) * 1'000)};
}

// Waits until `fd` is readable or `timeout` µs passed.
void wait_readable(int fd, Microseconds timeout) {
  if (timeout <= 0) return;
  pollfd readable{fd, POLLIN, 0};
  const timespec wait = to_timespec(timeout);
  ::ppoll(&readable, 1, &wait, nullptr);
}

// Sleeps, without watching any socket, until `until` on the monotonic clock.
void sleep_until(Microseconds until) {
  const Microseconds wait = until - monotonic_now();
  if (wait <= 0) return;
  const timespec pause = to_timespec(wait);
  ::nanosleep(&pause, nullptr);
}

// The rate the control side wants now: what was asked (or, for a sender, what was negotiated),
// held to the ceiling. 0: no limit (a receiver with nothing asked).
template <typename Endpoint>
double wanted_rate(const Endpoint& endpoint, const RunLimits& limits) {
  double wanted =
      limits.target_rate != nullptr ? limits.target_rate->load(std::memory_order_relaxed) : 0.0;
  if constexpr (std::is_same_v<Endpoint, DataSender>) {
    if (wanted <= 0) wanted = endpoint.negotiated_target_rate();
  }
  if (limits.ceiling != nullptr) {
    const double ceiling = limits.ceiling->bytes_per_second();
    if (ceiling > 0) wanted = wanted > 0 ? std::min(wanted, ceiling) : ceiling;
  }
  return wanted;
}

// Each turn: progress out to the control side, a new rate in.
template <typename Endpoint>
void publish(Endpoint& endpoint, const RunLimits& limits, double& applied_rate) {
  if (limits.progress != nullptr) {
    if constexpr (std::is_same_v<Endpoint, DataSender>) {
      limits.progress->store(endpoint.acknowledged_bytes(), std::memory_order_relaxed);
    } else {
      limits.progress->store(endpoint.stats().bytes_written, std::memory_order_relaxed);
    }
  }
  const double wanted = wanted_rate(endpoint, limits);
  if (wanted == applied_rate) return;
  applied_rate = wanted;
  if constexpr (std::is_same_v<Endpoint, DataSender>) {
    if (wanted > 0) endpoint.set_target_rate(wanted);
  } else {
    endpoint.set_rate_cap(wanted);
  }
}

// One endpoint's loop on one socket: datagrams in, datagrams out, then a wait for whichever of
// the socket and the endpoint's next timer comes first. The batches' memory lives as long as the
// loop.
template <typename Endpoint>
class RunLoop {
 public:
  RunLoop(DatagramSocket& socket, PacketPath& path, Endpoint& endpoint,
          std::optional<udp::endpoint> peer, const RunLimits& limits, Handshake* handshake)
      : socket_(socket),
        path_(path),
        endpoint_(endpoint),
        peer_(std::move(peer)),
        limits_(limits),
        handshake_(handshake),
        // Where the kernel coalesces what arrives (UDP GRO), a slot takes up to 64 datagrams
        // in one copy out of the kernel; the socket starts doing it here, after the handshake,
        // whose own loop takes datagrams one at a time.
        slot_bytes_(socket.coalesce_received() ? kCoalescedSlotBytes : kDatagramBytes),
        receive_memory_(kBatch * slot_bytes_),
        send_memory_(kBatch * kDatagramBytes) {}

  RunOutcome run() {
    started_ = monotonic_now();
    last_heard_ = started_;
    for (;;) {
      if (limits_.stop != nullptr && limits_.stop->load(std::memory_order_relaxed)) {
        if (!settled()) outcome_.code = wire::CloseCode::Aborted;
        break;
      }
      publish(endpoint_, limits_, applied_rate_);
      const Microseconds now = take_in(monotonic_now());
      if (now - last_heard_ > limits_.idle_timeout) {
        if (!settled()) outcome_.code = wire::CloseCode::IdleTimeout;
        break;
      }
      fill_out(now);
      send_out();
      if (unsent_from_ < unsent_to_) {
        pollfd writable{fd(), POLLOUT, 0};
        ::poll(&writable, 1, 1);
        continue;
      }
      if (!settled() && outcome_known(endpoint_)) settle();
      if (settled()) {
        if (!stay_for_peer()) break;
        continue;
      }
      const Microseconds wake = endpoint_.next_wakeup(monotonic_now());
      if (gathers_between_wakes()) sleep_until(std::min(wake, now + kReceiveQuantum));
      wait_readable(fd(), std::min(wake - monotonic_now(), limits_.idle_timeout));
    }
    if (!settled()) settle();
    return outcome_;
  }

 private:
  int fd() { return socket_.socket().native_handle(); }
  bool settled() const { return finished_at_ >= 0; }

  // Whether to let datagrams gather before the next read (kReceiveQuantum).
  bool gathers_between_wakes() const {
    if constexpr (std::is_same_v<Endpoint, DataSender>) {
      return false;
    } else {
      return endpoint_.state() == Endpoint::State::Receiving && taken_last_wake_ > 0 &&
             taken_last_wake_ < kSparseWake;
    }
  }

  // In: everything waiting now. Returns the time of the last batch's arrival.
  Microseconds take_in(Microseconds now) {
    taken_last_wake_ = 0;
    for (;;) {
      for (std::size_t i = 0; i < kBatch; ++i) {
        slots_[i].buffer = std::span(receive_memory_).subspan(i * slot_bytes_, slot_bytes_);
      }
      auto received = socket_.receive_batch(slots_);
      if (!received || *received == 0) return now;
      now = monotonic_now();
      for (std::size_t i = 0; i < *received; ++i) {
        slots_[i].for_each_datagram(
            [&](std::span<std::uint8_t> datagram) { take_one(datagram, slots_[i].source, now); });
      }
      if (*received < kBatch) return now;
    }
  }

  void take_one(std::span<std::uint8_t> datagram, const udp::endpoint& source, Microseconds now) {
    ++outcome_.datagrams_in;
    ++taken_last_wake_;
    auto opened = path_.open(datagram);
    if (!opened) {
      ++outcome_.dropped;
      return;
    }
    last_heard_ = now;
    if (!peer_) peer_ = source;
    if (opened->header.type == wire::PacketType::Hello && handshake_ != nullptr) {
      handshake_->answer_again();
      return;
    }
    endpoint_.on_packet(*opened, now);
  }

  // Out: what is due, once the socket took everything it refused last time. The datagrams lie
  // back to back, so runs of equal size go down as one segmented send.
  void fill_out(Microseconds now) {
    if (!peer_ || unsent_from_ != unsent_to_) return;
    unsent_from_ = unsent_to_ = 0;
    std::size_t used = 0;
    if (handshake_ != nullptr) {
      auto buffer = std::span(send_memory_).first(kDatagramBytes);
      if (auto length = handshake_->next_datagram(buffer, now); length && *length > 0) {
        outgoing_[unsent_to_++] = {buffer.first(*length), *peer_};
        used += *length;
      }
    }
    while (unsent_to_ < kBatch) {
      auto buffer = std::span(send_memory_).subspan(used, kDatagramBytes);
      auto length = endpoint_.next_datagram(buffer, now);
      if (!length || *length == 0) break;
      outgoing_[unsent_to_++] = {buffer.first(*length), *peer_};
      used += *length;
    }
  }

  void send_out() {
    if (unsent_from_ >= unsent_to_) return;
    auto sent =
        socket_.send_batch(std::span(outgoing_).subspan(unsent_from_, unsent_to_ - unsent_from_));
    if (sent) {
      unsent_from_ += *sent;
      outcome_.datagrams_out += *sent;
    } else {
      unsent_from_ = unsent_to_;  // an ICMP error for one datagram; the protocol repairs loss
    }
  }

  // The outcome, once: what the endpoint reached, told to the control side at once, so that
  // its reply does not wait for what the run does after the end for its peer.
  void settle() {
    finished_at_ = monotonic_now();
    if constexpr (std::is_same_v<Endpoint, DataSender>) {
      outcome_.completed = endpoint_.state() == Endpoint::State::Done;
    } else {
      outcome_.completed = endpoint_.state() == Endpoint::State::Closing ||
                           endpoint_.state() == Endpoint::State::Done;
    }
    if (endpoint_.state() == Endpoint::State::Failed) outcome_.code = endpoint_.close_code();
    outcome_.elapsed = finished_at_ - started_;
    if (limits_.on_settled) limits_.on_settled(outcome_);
  }

  // After the outcome: false to stop now. A receiver repeats its CLOSE until the CLOSE_ACK
  // comes (or its give-up passes, the data being safe); a sender answers a repeated CLOSE (its
  // CLOSE_ACK may be lost) until the peer has been quiet a while or the linger's limit passes.
  bool stay_for_peer() {
    const Microseconds now = monotonic_now();
    if constexpr (!std::is_same_v<Endpoint, DataSender>) {
      if (endpoint_.state() != Endpoint::State::Closing) return false;
      wait_readable(fd(), endpoint_.next_wakeup(now) - now);
      return true;
    } else {
      const Microseconds quiet_until = std::max(finished_at_, last_heard_) + kCloseQuiet;
      if (now >= std::min(quiet_until, finished_at_ + kCloseLingerMax)) return false;
      wait_readable(fd(), quiet_until - now);
      return true;
    }
  }

  DatagramSocket& socket_;
  PacketPath& path_;
  Endpoint& endpoint_;
  std::optional<udp::endpoint> peer_;
  const RunLimits& limits_;
  Handshake* handshake_;
  std::size_t slot_bytes_;
  std::vector<std::uint8_t> receive_memory_;
  std::vector<std::uint8_t> send_memory_;
  std::array<IncomingDatagram, kBatch> slots_{};
  std::array<OutgoingDatagram, kBatch> outgoing_{};
  RunOutcome outcome_;
  Microseconds last_heard_ = 0;
  std::size_t taken_last_wake_ = 0;  // datagrams the last take_in found
  std::size_t unsent_from_ = 0;
  std::size_t unsent_to_ = 0;  // outgoing_[unsent_from_, unsent_to_) still to go
  double applied_rate_ = 0;
  Microseconds started_ = 0;
  Microseconds finished_at_ = -1;  // when the outcome became known; -1 until then
};

template <typename Endpoint>
RunOutcome run(DatagramSocket& socket, PacketPath& path, Endpoint& endpoint,
               std::optional<udp::endpoint> peer, const RunLimits& limits, Handshake* handshake) {
  return RunLoop<Endpoint>(socket, path, endpoint, std::move(peer), limits, handshake).run();
}

}  // namespace

Microseconds monotonic_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

RunOutcome run_handshake(DatagramSocket& socket, Handshake& handshake,
                         std::optional<udp::endpoint>& peer, const RunLimits& limits) {
  RunOutcome outcome;
  std::vector<std::uint8_t> memory(kDatagramBytes);
  const Microseconds started = monotonic_now();
  while (handshake.state() == Handshake::State::Waiting) {
    if (limits.stop != nullptr && limits.stop->load(std::memory_order_relaxed)) {
      outcome.code = wire::CloseCode::Aborted;
      break;
    }
    Microseconds now = monotonic_now();
    if (now - started > limits.idle_timeout) {
      outcome.code = wire::CloseCode::IdleTimeout;
      break;
    }
    std::array<IncomingDatagram, 1> slot{};
    slot[0].buffer = memory;
    if (auto received = socket.receive_batch(slot); received && *received == 1) {
      ++outcome.datagrams_in;
      if (!handshake.on_datagram(slot[0].buffer.first(slot[0].length), now)) {
        ++outcome.dropped;
      } else if (!peer) {
        peer = slot[0].source;  // the passive side answers whoever opened the first packet
      }
      if (handshake.state() != Handshake::State::Waiting) break;
      continue;
    }
    if (peer) {
      auto length = handshake.next_datagram(memory, now);
      if (length && *length > 0) {
        const std::array<OutgoingDatagram, 1> one{
            OutgoingDatagram{std::span(memory).first(*length), *peer}};
        if (auto sent = socket.send_batch(one); sent) outcome.datagrams_out += *sent;
      }
    }
    const Microseconds wake = handshake.next_wakeup(monotonic_now());
    wait_readable(socket.socket().native_handle(),
                  std::max<Microseconds>(1, wake - monotonic_now()));
  }
  outcome.completed = handshake.state() == Handshake::State::Ready;
  if (handshake.state() == Handshake::State::Failed) outcome.code = wire::CloseCode::IdleTimeout;
  outcome.elapsed = monotonic_now() - started;
  return outcome;
}

RunOutcome run_sender(DatagramSocket& socket, PacketPath& path, DataSender& sender,
                      std::optional<udp::endpoint> peer, const RunLimits& limits,
                      Handshake* handshake) {
  return run(socket, path, sender, std::move(peer), limits, handshake);
}

RunOutcome run_receiver(DatagramSocket& socket, PacketPath& path, DataReceiver& receiver,
                        std::optional<udp::endpoint> peer, const RunLimits& limits,
                        Handshake* handshake) {
  return run(socket, path, receiver, std::move(peer), limits, handshake);
}

}  // namespace gridftp::transport::udpx
