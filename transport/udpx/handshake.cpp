#include "transport/udpx/handshake.hpp"

#include <algorithm>

#include "security/udpx/packet_protection.hpp"

namespace gridftp::transport::udpx {
namespace {

constexpr std::size_t kHelloOverhead = wire::kFrontBytes + crypto::kTagBytes;

}  // namespace

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
  return false;
}

Result<std::size_t> Handshake::next_datagram(std::span<std::uint8_t> out, Microseconds now) {
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
  if (side_ == Side::Active && state_ == State::Waiting) {
    return last_sent_ < 0 ? now : last_sent_ + retry_;
  }
  return now + 1'000'000;
}

}  // namespace gridftp::transport::udpx
