// AES-128-GCM protection of one direction's UDPX packets (docs/UDPX.md §4.3). A packet is laid
// out in one buffer as [associated data | body | 16-byte tag]: the clear header (16 bytes, or
// 32 for DATA and HELLO) is the associated data, the body is sealed in place, the tag written
// behind it. So a packet is built and protected in the buffer the socket sends from, and
// checked in the buffer it was received into: no copy, no allocation per packet.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "protocol/core/result.hpp"
#include "security/udpx/gcm_packet_cipher.hpp"
#include "security/udpx/key_schedule.hpp"

namespace gridftp::security::udpx {

// What the body gets: sealed (E=1), or authenticated only (E=0: PROT C/S DATA, the body travels
// in clear and the tag covers header and body as GMAC).
enum class BodyProtection { Encrypt, AuthenticateOnly };

class PacketProtection {
 public:
  // One cipher per direction, keyed here; only the nonce changes per packet.
  static Result<PacketProtection> create(const PacketKeys& keys);

  // `packet` holds the associated data, the body and room for the tag at its end. The nonce is
  // the IV XOR the packet number (RFC 9001 §5.3), so a packet number must never repeat under
  // one key: the caller's numbering guarantees it.
  // Errors: protocol::Errc::BadArgument when `packet` is shorter than `associated_bytes` + tag.
  Result<void> seal(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                    std::uint64_t packet_number, BodyProtection protection);

  // Checks the tag and, for Encrypt, decrypts the body in place. On failure the body holds
  // nothing usable and the packet must be dropped. Errors: Errc::PacketForged when the tag does not
  // verify, protocol::Errc::BadArgument for a packet too short to hold a tag.
  Result<void> open(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                    std::uint64_t packet_number, BodyProtection protection);

 private:
  PacketProtection(GcmPacketCipher seal_cipher, GcmPacketCipher open_cipher,
                   const std::array<std::uint8_t, kIvBytes>& iv)
      : seal_(std::move(seal_cipher)), open_(std::move(open_cipher)), iv_(iv) {}

  GcmPacketCipher seal_;
  GcmPacketCipher open_;
  std::array<std::uint8_t, kIvBytes> iv_;
};

}  // namespace gridftp::security::udpx
