// One UDPX connection's packet protection in both directions (docs/UDPX.md §4): which key seals
// what we send and opens what we receive (handshake keys for HELLO/HELLO_ACK, traffic keys for
// the rest), our packet numbering, and the replay window for the peer's. Packets are built and
// read in the caller's buffers: a packet is [front | body | tag], the front written by the
// caller with protocol/udpx's encoders, the body encoded or read from storage in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "protocol/core/result.hpp"
#include "protocol/udpx/packet_header.hpp"
#include "protocol/udpx/replay_window.hpp"
#include "protocol/udpx/udpx_errors.hpp"
#include "security/udpx/key_schedule.hpp"
#include "security/udpx/packet_protection.hpp"

namespace gridftp::transport::udpx {

namespace wire = protocol::udpx;
namespace crypto = security::udpx;
using Microseconds = wire::Microseconds;

enum class Side { Active, Passive };  // who sent HELLO (docs/UDPX.md §1.8)

// A received packet, opened: its header and where front and body lie in the datagram.
struct OpenedPacket {
  wire::CommonHeader header;
  std::span<const std::uint8_t> front;  // the whole clear front (16 or 32 bytes)
  std::span<const std::uint8_t> body;   // decrypted (or authenticated clear) body
};

class PacketPath {
 public:
  // Keys of both directions from the connection's secrets; `side` says which are ours.
  static Result<PacketPath> create(const crypto::ConnectionSecrets& secrets, Side side);
  // Handshake keys only, from the connection secret: enough for HELLO and HELLO_ACK.
  static Result<PacketPath> for_handshake(const crypto::Secret& connection_secret, Side side);
  // Adds the traffic keys once both randoms are known.
  Result<void> start_traffic(const crypto::Secret& connection_secret,
                             std::span<const std::uint8_t> random_active,
                             std::span<const std::uint8_t> random_passive);
  bool has_traffic_keys() const { return traffic_out_.has_value(); }

  // Seals `buffer`'s first front + body bytes (the front already encoded, with E set as
  // `protection` says) and appends the tag. Returns the datagram's length.
  Result<std::size_t> seal(std::span<std::uint8_t> buffer, wire::PacketType type,
                           std::size_t body_bytes, std::uint64_t packet_number,
                           crypto::BodyProtection protection);

  // The next packet number of ours; every sealed packet uses a fresh one.
  std::uint64_t take_packet_number() { return next_packet_number_++; }

  // A control packet (always encrypted) in `out`: `header` gets the next packet number and
  // E, `encode_body(span)` writes the body behind the 16-byte header and returns its size
  // (Result<std::size_t>, as protocol/udpx's encoders do). Returns the datagram's length.
  template <typename EncodeBody>
  Result<std::size_t> control(std::span<std::uint8_t> out, wire::CommonHeader header,
                              EncodeBody&& encode_body) {
    header.packet_number = take_packet_number();
    header.encrypted = true;
    if (out.size() < wire::kCommonHeaderBytes + crypto::kTagBytes) {
      return make_error(wire::Errc::BufferTooSmall);
    }
    if (auto written = wire::encode_common_header(header, out); !written) {
      return make_error(written.error());
    }
    auto body = encode_body(out.subspan(wire::kCommonHeaderBytes,
                                        out.size() - wire::kCommonHeaderBytes - crypto::kTagBytes));
    if (!body) return make_error(body.error());
    return seal(out, header.type, *body, header.packet_number, crypto::BodyProtection::Encrypt);
  }

  // Checks and opens a received datagram in place. Errors: the codec's for a malformed front,
  // PacketForged for a bad tag or a replayed packet number. Nothing is trusted before this.
  Result<OpenedPacket> open(std::span<std::uint8_t> datagram);

  std::uint64_t forged() const { return forged_; }
  std::uint64_t replayed() const { return replayed_; }

 private:
  PacketPath(Side side, crypto::PacketProtection handshake_out,
             crypto::PacketProtection handshake_in)
      : side_(side),
        handshake_out_(std::move(handshake_out)),
        handshake_in_(std::move(handshake_in)) {}
  Result<void> set_traffic(const crypto::Secret& a2p, const crypto::Secret& p2a);

  Side side_;
  crypto::PacketProtection handshake_out_;
  crypto::PacketProtection handshake_in_;
  std::optional<crypto::PacketProtection> traffic_out_;
  std::optional<crypto::PacketProtection> traffic_in_;
  std::uint64_t next_packet_number_ = 0;
  wire::ReplayWindow replay_;
  std::uint64_t forged_ = 0;
  std::uint64_t replayed_ = 0;
};

}  // namespace gridftp::transport::udpx
