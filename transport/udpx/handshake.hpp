// The UDPX handshake (docs/UDPX.md §1.8, §1.10, §4.1): a TLS handshake carried in KEY_EXCHANGE
// packets, whose exporter gives the connection secret, then one round trip that turns the
// secret into a connection's keys and proves the path. The active side sends HELLO, padded to
// the full datagram size, with its random R_a in clear; the connection secret is the TLS
// session's exporter for R_a, so the passive side, which holds the same session, can compute
// it, open the HELLO with the handshake key and answer HELLO_ACK with its random R_p, padded
// to the HELLO's size and no more. (Without the in-band TLS, the secret comes from a session
// both ends already share: the tests and udpx_pipe use a fixed key that way.) Both then derive the
// traffic keys from the secret and both randoms. A HELLO is resent after 250 ms, doubling, five
// times; a HELLO repeated after the answer (the HELLO_ACK was lost) gets the same answer again.
// Packets in, datagrams out, time an argument, as the data ends are.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "protocol/core/result.hpp"
#include "protocol/udpx/control_bodies.hpp"
#include "protocol/udpx/key_exchange_stream.hpp"
#include "security/handshake.hpp"
#include "security/openssl_ptr.hpp"
#include "transport/udpx/packet_path.hpp"

namespace gridftp::transport::udpx {

using Random = std::array<std::uint8_t, wire::kRandomBytes>;

// The connection secret that a HELLO random selects: the control session's TLS exporter with
// this random as its context (security::TlsEngine::export_keying_material).
using SecretForRandom = std::function<Result<crypto::Secret>(const Random&)>;

// The in-band key exchange: a TLS handshake (DCAU's, security::GsiHandshake in its
// SSL-compatible form; the active side is the TLS client) and whose identity the peer must
// prove (empty: any identity the handshake's trust accepted).
struct InBandTls {
  std::unique_ptr<security::Handshake> tls;
  std::string expected_peer;
};

// DCAU's TLS as the key exchange: `context` is the data channel's (client side when we are
// active), in its SSL-compatible form, and the peer must prove `expected_peer`.
Result<InBandTls> dcau_tls(const security::SslCtxPtr& context, Side side,
                           std::string expected_peer);

// The key exchange for sessions without DCAU, where the config allows it: unauthenticated TLS
// 1.3 (security::make_unauthenticated_context), no identity expected (docs/UDPX.md §4.1).
Result<InBandTls> unauthenticated_tls(Side side);

// The exporter label that makes a UDPX connection secret from a TLS session (docs/UDPX.md §4.1).
inline constexpr const char* kExporterLabel = "EXPORTER-gridftp-udpx-v1";

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
  // The same, with the connection secret made by a TLS handshake in KEY_EXCHANGE packets first.
  static Result<Handshake> active(InBandTls tls, const wire::HelloBody& offer,
                                  std::size_t datagram_bytes);
  static Result<Handshake> passive(InBandTls tls, const wire::HelloBody& answer);

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
  // The in-band TLS's verdict once it is done: the peer's identity, or why it failed.
  const std::string& peer_identity() const { return peer_identity_; }
  const std::string& failure() const { return failure_; }
  // The key exchange proved an identity other than the one DCAU expects.
  bool refused_peer_identity() const { return refused_identity_; }

 private:
  Handshake(Side side, SecretForRandom secret_for, const wire::HelloBody& ours)
      : side_(side), secret_for_(std::move(secret_for)), ours_(ours) {}
  bool on_hello(std::span<std::uint8_t> datagram, Microseconds now);
  bool on_hello_ack(std::span<std::uint8_t> datagram, Microseconds now);
  bool on_key_exchange(std::span<std::uint8_t> datagram, Microseconds now);
  Result<void> start_key_exchange(const Random& random);
  Result<void> on_tls_complete();
  Result<std::size_t> next_key_exchange(std::span<std::uint8_t> out, Microseconds now);
  void fail(std::string why);

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
  // In-band TLS (absent when the secret comes from elsewhere).
  std::unique_ptr<security::Handshake> tls_;
  std::string expected_peer_;
  wire::KeyExchangeStream key_exchange_;
  std::optional<PacketPath> key_exchange_path_;  // keys from R_a alone: integrity, not secrecy
  std::string peer_identity_;
  std::string failure_;
  bool refused_identity_ = false;
};

}  // namespace gridftp::transport::udpx
