#include "transport/udpx/packet_path.hpp"

#include "security/security_errors.hpp"

namespace gridftp::transport::udpx {
namespace {

bool is_handshake(wire::PacketType type) {
  return type == wire::PacketType::Hello || type == wire::PacketType::HelloAck ||
         type == wire::PacketType::KeyExchange;
}

Result<crypto::PacketProtection> keys_of(const crypto::Secret& secret) {
  auto derived = crypto::derive_packet_keys(secret);
  if (!derived) return make_error(derived.error());
  return crypto::PacketProtection::create(*derived);
}

}  // namespace

Result<PacketPath> PacketPath::for_handshake(const crypto::Secret& connection_secret, Side side) {
  auto secrets = crypto::derive_handshake_secrets(connection_secret);
  if (!secrets) return make_error(secrets.error());
  const bool active = side == Side::Active;
  auto out = keys_of(active ? secrets->a2p : secrets->p2a);
  auto in = keys_of(active ? secrets->p2a : secrets->a2p);
  if (!out || !in) return make_error(!out ? out.error() : in.error());
  return PacketPath(side, std::move(*out), std::move(*in));
}

Result<void> PacketPath::set_traffic(const crypto::Secret& a2p, const crypto::Secret& p2a) {
  const bool active = side_ == Side::Active;
  auto out = keys_of(active ? a2p : p2a);
  auto in = keys_of(active ? p2a : a2p);
  if (!out || !in) return make_error(!out ? out.error() : in.error());
  traffic_out_.emplace(std::move(*out));
  traffic_in_.emplace(std::move(*in));
  return {};
}

Result<void> PacketPath::start_traffic(const crypto::Secret& connection_secret,
                                       std::span<const std::uint8_t> random_active,
                                       std::span<const std::uint8_t> random_passive) {
  auto secrets = crypto::derive_traffic_secrets(connection_secret, random_active, random_passive);
  if (!secrets) return make_error(secrets.error());
  return set_traffic(secrets->a2p, secrets->p2a);
}

Result<PacketPath> PacketPath::create(const crypto::ConnectionSecrets& secrets, Side side) {
  const bool active = side == Side::Active;
  auto out = keys_of(active ? secrets.handshake_a2p : secrets.handshake_p2a);
  auto in = keys_of(active ? secrets.handshake_p2a : secrets.handshake_a2p);
  if (!out || !in) return make_error(!out ? out.error() : in.error());
  PacketPath path(side, std::move(*out), std::move(*in));
  if (auto traffic = path.set_traffic(secrets.traffic_a2p, secrets.traffic_p2a); !traffic) {
    return make_error(traffic.error());
  }
  return path;
}

Result<std::size_t> PacketPath::seal(std::span<std::uint8_t> buffer, wire::PacketType type,
                                     std::size_t body_bytes, std::uint64_t packet_number,
                                     crypto::BodyProtection protection) {
  const std::size_t front = wire::associated_data_bytes(type);
  const std::size_t length = front + body_bytes + crypto::kTagBytes;
  if (length > buffer.size()) {
    return make_error(wire::Errc::BufferTooSmall);
  }
  if (!is_handshake(type) && !traffic_out_) return make_error(security::Errc::CryptoFailure);
  auto& keys = is_handshake(type) ? handshake_out_ : *traffic_out_;
  if (auto sealed = keys.seal(buffer.first(length), front, packet_number, protection); !sealed) {
    return make_error(sealed.error());
  }
  return length;
}

Result<OpenedPacket> PacketPath::open(std::span<std::uint8_t> datagram) {
  auto header = wire::decode_common_header(datagram);
  if (!header) return make_error(header.error());
  const std::size_t front = wire::associated_data_bytes(header->type);
  if (datagram.size() < front + crypto::kTagBytes) {
    return make_error(wire::Errc::Truncated);
  }
  // Replays are dropped before any crypto is spent on them (docs/UDPX.md §4.4).
  if (!replay_.may_accept(header->packet_number)) {
    ++replayed_;
    return make_error(security::Errc::PacketForged);
  }
  if (!is_handshake(header->type) && !traffic_in_) {
    ++forged_;  // traffic before the handshake finished here: nothing to open it with yet
    return make_error(security::Errc::PacketForged);
  }
  auto& keys = is_handshake(header->type) ? handshake_in_ : *traffic_in_;
  const auto protection = header->encrypted ? crypto::BodyProtection::Encrypt
                                            : crypto::BodyProtection::AuthenticateOnly;
  if (auto opened = keys.open(datagram, front, header->packet_number, protection); !opened) {
    ++forged_;
    return make_error(opened.error());
  }
  replay_.accept(header->packet_number);
  return OpenedPacket{*header, datagram.first(front),
                      datagram.subspan(front, datagram.size() - front - crypto::kTagBytes)};
}

}  // namespace gridftp::transport::udpx
