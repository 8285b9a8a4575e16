#include "transport/udpx/handshake.hpp"

#include <algorithm>

#include "protocol/core/errors.hpp"
#include "security/gsi_handshake.hpp"
#include "security/tls_contexts.hpp"
#include "security/udpx/packet_protection.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::transport::udpx {
namespace {

constexpr std::size_t kHelloOverhead = wire::kFrontBytes + crypto::kTagBytes;
// TLS bytes per KEY_EXCHANGE packet: fits any path that carries UDPX at all (QUIC's minimum).
constexpr std::size_t kKeyExchangeChunk = 1200;
constexpr std::size_t kKeyExchangeDatagram = kKeyExchangeChunk + 64;

// KEY_EXCHANGE packets are sealed under keys anyone can derive from R_a (docs/UDPX.md §1.10):
// they catch damage and stray datagrams; TLS itself protects what they carry.
Result<PacketPath> key_exchange_path(const Random& random_active, Side side) {
  static constexpr std::string_view kLabel = "udpx key exchange v1";
  auto secret = crypto::hkdf_extract(
      random_active,
      std::span(reinterpret_cast<const std::uint8_t*>(kLabel.data()), kLabel.size()));
  if (!secret) return make_error(secret.error());
  return PacketPath::for_handshake(*secret, side);
}

SecretForRandom exporter_of(security::TlsEngine& engine) {
  return [&engine](const Random& random) -> Result<crypto::Secret> {
    crypto::Secret secret{};
    auto exported = engine.export_keying_material(kExporterLabel, random, secret);
    if (!exported) return make_error(exported.error());
    return secret;
  };
}

}  // namespace

Result<InBandTls> dcau_tls(const security::SslCtxPtr& context, Side side,
                           std::string expected_peer) {
  security::GsiOptions options;
  options.ssl_compatible = true;  // both ends are UDPX peers: plain TLS, no GSI bytes after it
  auto tls = security::GsiHandshake::create(
      context.get(),
      side == Side::Active ? security::TlsEngine::Role::Client : security::TlsEngine::Role::Server,
      options);
  if (!tls) return make_error(tls.error());
  return InBandTls{std::make_unique<security::GsiHandshake>(std::move(*tls)),
                   std::move(expected_peer)};
}

Result<InBandTls> unauthenticated_tls(Side side) {
  const bool client = side == Side::Active;
  auto context = security::make_unauthenticated_context(client ? security::TlsRole::Client
                                                               : security::TlsRole::Server);
  if (!context) return make_error(context.error());
  auto engine =
      security::TlsEngine::create(context->get(), client ? security::TlsEngine::Role::Client
                                                         : security::TlsEngine::Role::Server);
  if (!engine) return make_error(engine.error());
  return InBandTls{std::make_unique<security::TlsHandshake>(std::move(*engine)), {}};
}

Result<Handshake> Handshake::active(InBandTls tls, const wire::HelloBody& offer,
                                    std::size_t datagram_bytes) {
  Handshake handshake(Side::Active, nullptr, offer);
  handshake.datagram_bytes_ = datagram_bytes;
  handshake.tls_ = std::move(tls.tls);
  handshake.expected_peer_ = std::move(tls.expected_peer);
  if (auto filled = crypto::fill_random(handshake.random_active_); !filled) {
    return make_error(filled.error());
  }
  auto path = key_exchange_path(handshake.random_active_, Side::Active);
  if (!path) return make_error(path.error());
  handshake.key_exchange_path_.emplace(std::move(*path));
  auto client_hello = handshake.tls_->step({});
  if (!client_hello) return make_error(client_hello.error());
  handshake.key_exchange_.append(*client_hello);
  return handshake;
}

Result<Handshake> Handshake::passive(InBandTls tls, const wire::HelloBody& answer) {
  Handshake handshake(Side::Passive, nullptr, answer);
  handshake.tls_ = std::move(tls.tls);
  handshake.expected_peer_ = std::move(tls.expected_peer);
  return handshake;
}

void Handshake::fail(std::string why) {
  state_ = State::Failed;
  if (failure_.empty()) failure_ = std::move(why);
}

Result<void> Handshake::on_tls_complete() {
  peer_identity_ = tls_->peer_identity();
  if (!expected_peer_.empty() && !security::same_identity(peer_identity_, expected_peer_)) {
    refused_identity_ = true;
    return make_error(error_code_for(Condition::UnexpectedDataIdentity));
  }
  secret_for_ = exporter_of(tls_->engine());
  if (side_ == Side::Passive) return {};
  auto secret = secret_for_(random_active_);
  if (!secret) return make_error(secret.error());
  secret_ = *secret;
  auto path = PacketPath::for_handshake(secret_, Side::Active);
  if (!path) return make_error(path.error());
  path_.emplace(std::move(*path));
  return {};
}

bool Handshake::on_key_exchange(std::span<std::uint8_t> datagram, Microseconds now) {
  auto random = wire::decode_hello_random(datagram);
  if (!random) return false;
  if (!key_exchange_path_) {
    // Passive: the first KEY_EXCHANGE that opens picks the connection.
    if (side_ != Side::Passive) return false;
    auto path = key_exchange_path(*random, Side::Passive);
    if (!path || !path->open(datagram)) return false;
    random_active_ = *random;
    key_exchange_path_.emplace(std::move(*path));
  } else if (*random != random_active_ || !key_exchange_path_->open(datagram)) {
    return false;
  }
  // Opened in place: the body sits behind the 32-byte front.
  const auto body = wire::decode_key_exchange(std::span<const std::uint8_t>(datagram).subspan(
      wire::kFrontBytes, datagram.size() - wire::kFrontBytes - crypto::kTagBytes));
  if (!body || !key_exchange_.on_body(*body, now)) return false;
  const auto received = key_exchange_.take_received();
  if (received.empty() || tls_->complete()) return true;
  auto reply = tls_->step(received);
  if (!reply) {
    fail("TLS handshake failed: " + (tls_->engine().last_error().empty()
                                         ? reply.error().message()
                                         : tls_->engine().last_error()));
    return true;
  }
  key_exchange_.append(*reply);
  if (tls_->complete()) {
    if (auto done = on_tls_complete(); !done) {
      fail(done.error() == Condition::UnexpectedDataIdentity
               ? "the peer is '" + peer_identity_ + "', not '" + expected_peer_ + "'"
               : done.error().message());
    }
  }
  return true;
}

Result<std::size_t> Handshake::next_key_exchange(std::span<std::uint8_t> out, Microseconds now) {
  if (out.size() < kKeyExchangeDatagram) return make_error(wire::Errc::BufferTooSmall);
  wire::CommonHeader header;
  header.type = wire::PacketType::KeyExchange;
  header.packet_number = key_exchange_path_->take_packet_number();
  if (auto front = wire::encode_hello_front(header, random_active_, out); !front) {
    return make_error(front.error());
  }
  const auto body = key_exchange_.next_body(kKeyExchangeChunk, now);
  auto encoded = wire::encode_key_exchange(
      body, out.subspan(wire::kFrontBytes, kKeyExchangeDatagram - wire::kFrontBytes));
  if (!encoded) return make_error(encoded.error());
  return key_exchange_path_->seal(out, header.type, *encoded, header.packet_number,
                                  crypto::BodyProtection::Encrypt);
}

Result<Handshake> Handshake::active(SecretForRandom secret_for, const wire::HelloBody& offer,
                                    std::size_t datagram_bytes) {
  Handshake handshake(Side::Active, std::move(secret_for), offer);
  handshake.datagram_bytes_ = datagram_bytes;
  if (auto filled = crypto::fill_random(handshake.random_active_); !filled) {
    return make_error(filled.error());
  }
  auto secret = handshake.secret_for_(handshake.random_active_);
  if (!secret) return make_error(secret.error());
  handshake.secret_ = *secret;
  auto path = PacketPath::for_handshake(handshake.secret_, Side::Active);
  if (!path) return make_error(path.error());
  handshake.path_.emplace(std::move(*path));
  return handshake;
}

Handshake Handshake::passive(SecretForRandom secret_for, const wire::HelloBody& answer) {
  return Handshake(Side::Passive, std::move(secret_for), answer);
}

bool Handshake::on_hello(std::span<std::uint8_t> datagram, Microseconds now) {
  auto random = wire::decode_hello_random(datagram);
  if (!random) return false;
  if (path_) {
    // Ours already: a repeat, because our answer was lost. Answer again once it opens.
    if (*random != random_active_ || !path_->open(datagram)) return false;
    owe_answer_ = true;
    return true;
  }
  if (!secret_for_) return false;  // the in-band TLS has not finished
  if (tls_ && *random != random_active_) return false;
  auto secret = secret_for_(*random);
  if (!secret) return false;
  auto path = PacketPath::for_handshake(*secret, Side::Passive);
  if (!path) return false;
  auto opened = path->open(datagram);
  if (!opened) return false;  // not from someone who holds the control session's secret
  auto hello = wire::decode_hello(opened->body);
  if (!hello || (hello->versions & (1U << wire::kVersion)) == 0) return false;
  if (!crypto::fill_random(random_passive_)) return false;
  if (!path->start_traffic(*secret, *random, random_passive_)) return false;
  secret_ = *secret;
  random_active_ = *random;
  peer_hello_ = *hello;
  datagram_bytes_ = datagram.size();  // never answer with more than we were sent
  path_.emplace(std::move(*path));
  owe_answer_ = true;
  state_ = State::Ready;
  (void)now;
  return true;
}

bool Handshake::on_hello_ack(std::span<std::uint8_t> datagram, Microseconds now) {
  if (state_ != State::Waiting) return false;
  auto opened = path_->open(datagram);
  if (!opened) return false;
  auto random = wire::decode_hello_random(datagram);
  auto hello = wire::decode_hello(opened->body);
  if (!random || !hello) return false;
  if (!path_->start_traffic(secret_, random_active_, *random)) {
    state_ = State::Failed;
    return true;
  }
  random_passive_ = *random;
  peer_hello_ = *hello;
  rtt_ = static_cast<Microseconds>(static_cast<std::uint32_t>(
      static_cast<std::uint32_t>(now) - static_cast<std::uint32_t>(hello->echo_tx_time_us)));
  state_ = State::Ready;
  return true;
}

bool Handshake::on_datagram(std::span<std::uint8_t> datagram, Microseconds now) {
  auto header = wire::decode_common_header(datagram);
  if (!header) return false;
  if (side_ == Side::Passive && header->type == wire::PacketType::Hello) {
    return on_hello(datagram, now);
  }
  if (side_ == Side::Active && header->type == wire::PacketType::HelloAck) {
    return on_hello_ack(datagram, now);
  }
  if (header->type == wire::PacketType::KeyExchange && tls_ && state_ == State::Waiting) {
    return on_key_exchange(datagram, now);
  }
  return false;
}

Result<std::size_t> Handshake::next_datagram(std::span<std::uint8_t> out, Microseconds now) {
  if (tls_ && state_ == State::Waiting) {
    if (key_exchange_.failed()) {
      fail("no answer to the UDPX key exchange");
      return std::size_t{0};
    }
    if (key_exchange_path_ && key_exchange_.has_due(now)) return next_key_exchange(out, now);
  }
  if (!path_) return std::size_t{0};  // keys not made yet
  const bool hello_due = side_ == Side::Active && state_ == State::Waiting &&
                         (last_sent_ < 0 || now - last_sent_ >= retry_);
  if (side_ == Side::Active && hello_due && attempts_ > 0) retry_ *= 2;
  if (side_ == Side::Active && hello_due && attempts_ >= kAttempts) {
    state_ = State::Failed;
    return std::size_t{0};
  }
  const bool answer_due = side_ == Side::Passive && owe_answer_;
  if (!hello_due && !answer_due) return std::size_t{0};
  if (datagram_bytes_ > out.size() || datagram_bytes_ < kHelloOverhead) {
    return make_error(wire::Errc::BufferTooSmall);
  }
  wire::CommonHeader header;
  header.type = side_ == Side::Active ? wire::PacketType::Hello : wire::PacketType::HelloAck;
  header.packet_number = path_->take_packet_number();
  const Random& random = side_ == Side::Active ? random_active_ : random_passive_;
  if (auto front = wire::encode_hello_front(header, random, out); !front) {
    return make_error(front.error());
  }
  wire::HelloBody body = ours_;
  body.tx_time_us = static_cast<std::uint32_t>(now);
  body.echo_tx_time_us = side_ == Side::Active ? 0 : peer_hello_.tx_time_us;
  const std::size_t body_bytes = datagram_bytes_ - kHelloOverhead;
  auto encoded = wire::encode_hello(body, body_bytes, out.subspan(wire::kFrontBytes, body_bytes));
  if (!encoded) return make_error(encoded.error());
  auto sealed = path_->seal(out, header.type, *encoded, header.packet_number,
                            crypto::BodyProtection::Encrypt);
  if (!sealed) return sealed;
  if (side_ == Side::Active) {
    ++attempts_;
    last_sent_ = now;
  } else {
    owe_answer_ = false;
  }
  return sealed;
}

Microseconds Handshake::next_wakeup(Microseconds now) const {
  if (owe_answer_) return now;
  Microseconds wake = now + 1'000'000;
  if (side_ == Side::Active && state_ == State::Waiting && path_) {
    wake = last_sent_ < 0 ? now : last_sent_ + retry_;
  }
  if (tls_ && state_ == State::Waiting && key_exchange_path_) {
    wake = std::min(wake, key_exchange_.next_wakeup(now));
  }
  return wake;
}

}  // namespace gridftp::transport::udpx
