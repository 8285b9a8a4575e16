#include "transport/udpx/endpoint_runner.hpp"

#include <algorithm>
#include <array>
#include <ctime>
#include <type_traits>
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

template <typename Endpoint>
bool finished(const Endpoint& endpoint) {
  using State = typename Endpoint::State;
  return endpoint.state() == State::Done || endpoint.state() == State::Failed;
}

// Waits until `fd` is readable or `timeout` µs passed.
void wait_readable(int fd, Microseconds timeout) {
  if (timeout <= 0) return;
  pollfd readable{fd, POLLIN, 0};
  const timespec wait{static_cast<std::time_t>(timeout / 1'000'000),
                      static_cast<long>((timeout % 1'000'000) * 1'000)};
  ::ppoll(&readable, 1, &wait, nullptr);
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

template <typename Endpoint>
RunOutcome run(DatagramSocket& socket, PacketPath& path, Endpoint& endpoint,
               std::optional<udp::endpoint> peer, const RunLimits& limits, Handshake* handshake) {
  RunOutcome outcome;
  std::vector<std::uint8_t> receive_memory(kBatch * kDatagramBytes);
  std::vector<std::uint8_t> send_memory(kBatch * kDatagramBytes);
  std::array<IncomingDatagram, kBatch> slots;
  std::array<OutgoingDatagram, kBatch> outgoing;
  const Microseconds started = monotonic_now();
  Microseconds last_heard = started;
  std::size_t unsent_from = 0;
  std::size_t unsent_to = 0;  // outgoing[unsent_from, unsent_to) still to go
  double applied_rate = 0;
  Microseconds finished_at = -1;
  for (;;) {
    if (finished_at < 0 && limits.stop != nullptr && limits.stop->load(std::memory_order_relaxed)) {
      outcome.code = wire::CloseCode::Aborted;
      break;
    }
    publish(endpoint, limits, applied_rate);
    Microseconds now = monotonic_now();
    // In: everything waiting now.
    for (;;) {
      for (std::size_t i = 0; i < kBatch; ++i) {
        slots[i].buffer = std::span(receive_memory).subspan(i * kDatagramBytes, kDatagramBytes);
      }
      auto received = socket.receive_batch(slots);
      if (!received || *received == 0) break;
      now = monotonic_now();
      for (std::size_t i = 0; i < *received; ++i) {
        ++outcome.datagrams_in;
        auto opened = path.open(slots[i].buffer.first(slots[i].length));
        if (!opened) {
          ++outcome.dropped;
          continue;
        }
        last_heard = now;
        if (!peer) peer = slots[i].source;
        if (opened->header.type == wire::PacketType::Hello && handshake != nullptr) {
          handshake->answer_again();
          continue;
        }
        endpoint.on_packet(*opened, now);
      }
      if (*received < kBatch) break;
    }
    if (now - last_heard > limits.idle_timeout) {
      outcome.code = wire::CloseCode::IdleTimeout;
      break;
    }
    // Out: what is due, after whatever the socket refused last time.
    if (peer && unsent_from == unsent_to) {
      unsent_from = unsent_to = 0;
      if (handshake != nullptr) {
        auto buffer = std::span(send_memory).first(kDatagramBytes);
        if (auto length = handshake->next_datagram(buffer, now); length && *length > 0) {
          outgoing[unsent_to++] = {buffer.first(*length), *peer};
        }
      }
      for (std::size_t i = unsent_to; i < kBatch; ++i) {
        auto buffer = std::span(send_memory).subspan(i * kDatagramBytes, kDatagramBytes);
        auto length = endpoint.next_datagram(buffer, now);
        if (!length || *length == 0) break;
        outgoing[unsent_to++] = {buffer.first(*length), *peer};
      }
    }
    if (unsent_from < unsent_to) {
      auto sent =
          socket.send_batch(std::span(outgoing).subspan(unsent_from, unsent_to - unsent_from));
      if (sent) {
        unsent_from += *sent;
        outcome.datagrams_out += *sent;
      } else {
        unsent_from = unsent_to;  // an ICMP error for one datagram; the protocol repairs loss
      }
    }
    if (unsent_from < unsent_to) {
      pollfd writable{socket.socket().native_handle(), POLLOUT, 0};
      ::poll(&writable, 1, 1);
      continue;
    }
    if (finished(endpoint)) {
      // The transfer's time ends here, not after the linger for a repeated CLOSE.
      now = monotonic_now();
      if (finished_at < 0) finished_at = now;
      // Only a sender owes answers after the end (CLOSE_ACK to a repeated CLOSE).
      if constexpr (!std::is_same_v<Endpoint, DataSender>) break;
      const Microseconds quiet_until = std::max(finished_at, last_heard) + kCloseQuiet;
      if (now >= std::min(quiet_until, finished_at + kCloseLingerMax)) break;
      wait_readable(socket.socket().native_handle(), quiet_until - now);
      continue;
    }
    const Microseconds wake = endpoint.next_wakeup(monotonic_now());
    wait_readable(socket.socket().native_handle(),
                  std::min(wake - monotonic_now(), limits.idle_timeout));
  }
  outcome.completed = endpoint.state() == Endpoint::State::Done;
  if (endpoint.state() == Endpoint::State::Failed) outcome.code = endpoint.close_code();
  outcome.elapsed = (finished_at >= 0 ? finished_at : monotonic_now()) - started;
  return outcome;
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
  return run(socket, path, sender, peer, limits, handshake);
}

RunOutcome run_receiver(DatagramSocket& socket, PacketPath& path, DataReceiver& receiver,
                        std::optional<udp::endpoint> peer, const RunLimits& limits,
                        Handshake* handshake) {
  return run(socket, path, receiver, peer, limits, handshake);
}

}  // namespace gridftp::transport::udpx
