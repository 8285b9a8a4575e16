// The UDPX handshake (docs/UDPX.md §1.8, §4.1): one round trip that turns the control
// session's shared secret into a connection's keys and proves the path. The active side sends
// HELLO, padded to the full datagram size, with its random R_a in clear; the connection secret
// is the control session's TLS exporter for R_a, so the passive side, which holds the same
// session, can compute it, open the HELLO with the handshake key and answer HELLO_ACK with its
// random R_p, padded to the HELLO's size and no more. Both then derive the traffic keys from the
// secret and both randoms. A HELLO is resent after 250 ms, doubling, five times; a HELLO
// repeated after the answer (the HELLO_ACK was lost) gets the same answer again. Packets in,
// datagrams out, time an argument, as the data ends are.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "protocol/core/result.hpp"
#include "protocol/udpx/control_bodies.hpp"
#include "transport/udpx/packet_path.hpp"

namespace gridftp::transport::udpx {

using Random = std::array<std::uint8_t, wire::kRandomBytes>;

// The connection secret that a HELLO random selects: the control session's TLS exporter with
// this random as its context (security::TlsEngine::export_keying_material).
using SecretForRandom = std::function<Result<crypto::Secret>(const Random&)>;

class Handshake {
 public:
  enum class State { Waiting, Ready, Failed };
  static constexpr Microseconds kFirstRetry = 250'000;
  static constexpr int kAttempts = 5;

  // Active side: `offer` is what our HELLO proposes; `datagram_bytes` its padded size.
  static Result<Handshake> active(SecretForRandom secret_for, const wire::HelloBody& offer,
                                  std::size_t datagram_bytes);
  // Passive side: `answer` is what our HELLO_ACK says (its echo fields are filled in).
  static Handshake passive(SecretForRandom secret_for, const wire::HelloBody& answer);

  // Any datagram received while the handshake runs. False when it was not for the handshake
  // (malformed, forged, another type): dropped.
  bool on_datagram(std::span<std::uint8_t> datagram, Microseconds now);
  // Passive, after Ready: the data phase saw the HELLO again, so the HELLO_ACK was lost.
  void answer_again() { owe_answer_ = true; }
  Result<std::size_t> next_datagram(std::span<std::uint8_t> out, Microseconds now);
  Microseconds next_wakeup(Microseconds now) const;

  State state() const { return state_; }
  PacketPath& path() { return *path_; }
  const wire::HelloBody& peer_hello() const { return peer_hello_; }
  Microseconds rtt() const { return rtt_; }  // active side: the HELLO's round trip

 private:
  Handshake(Side side, SecretForRandom secret_for, const wire::HelloBody& ours)
      : side_(side), secret_for_(std::move(secret_for)), ours_(ours) {}
  bool on_hello(std::span<std::uint8_t> datagram, Microseconds now);
  bool on_hello_ack(std::span<std::uint8_t> datagram, Microseconds now);

  Side side_;
  SecretForRandom secret_for_;
  wire::HelloBody ours_;
  wire::HelloBody peer_hello_;
  State state_ = State::Waiting;
  std::optional<PacketPath> path_;
  crypto::Secret secret_{};
  Random random_active_{};
  Random random_passive_{};
  std::size_t datagram_bytes_ = 0;  // what we pad to
  int attempts_ = 0;
  Microseconds last_sent_ = -1;
  Microseconds retry_ = kFirstRetry;
  bool owe_answer_ = false;
  Microseconds rtt_ = 0;
};

}  // namespace gridftp::transport::udpx
