#include "transport/udpx/packet_path.hpp"

#include "security/security_errors.hpp"

namespace gridftp::transport::udpx {
namespace {

bool is_handshake(wire::PacketType type) {
  return type == wire::PacketType::Hello || type == wire::PacketType::HelloAck;
}

}  // namespace

Result<PacketPath> PacketPath::create(const crypto::ConnectionSecrets& secrets, Side side) {
  const bool active = side == Side::Active;
  auto keys = [](const crypto::Secret& secret) -> Result<crypto::PacketProtection> {
    auto derived = crypto::derive_packet_keys(secret);
    if (!derived) return make_error(derived.error());
    return crypto::PacketProtection::create(*derived);
  };
  auto handshake_out = keys(active ? secrets.handshake_a2p : secrets.handshake_p2a);
  auto traffic_out = keys(active ? secrets.traffic_a2p : secrets.traffic_p2a);
  auto handshake_in = keys(active ? secrets.handshake_p2a : secrets.handshake_a2p);
  auto traffic_in = keys(active ? secrets.traffic_p2a : secrets.traffic_a2p);
  for (const auto* made : {&handshake_out, &traffic_out, &handshake_in, &traffic_in}) {
    if (!*made) return make_error(made->error());
  }
  return PacketPath(std::move(*handshake_out), std::move(*traffic_out), std::move(*handshake_in),
                    std::move(*traffic_in));
}

Result<std::size_t> PacketPath::seal(std::span<std::uint8_t> buffer, wire::PacketType type,
                                     std::size_t body_bytes, std::uint64_t packet_number,
                                     crypto::BodyProtection protection) {
  const std::size_t front = wire::associated_data_bytes(type);
  const std::size_t length = front + body_bytes + crypto::kTagBytes;
  if (length > buffer.size()) {
    return make_error(wire::Errc::BufferTooSmall);
  }
  auto& keys = is_handshake(type) ? handshake_out_ : traffic_out_;
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
  auto& keys = is_handshake(header->type) ? handshake_in_ : traffic_in_;
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
