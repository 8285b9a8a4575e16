#include "security/udpx/packet_protection.hpp"

#include <utility>

#include "protocol/core/errors.hpp"
#include "security/aead_nonce.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security::udpx {
namespace {

// A packet's parts as the cipher takes them: associated data, the text to encipher (none for
// authenticate-only: header and body are all associated data, GMAC) and the tag behind them.
struct PacketParts {
  std::span<const std::uint8_t> aad;
  std::span<std::uint8_t> text;
  std::span<std::uint8_t, kTagBytes> tag;
};

Result<PacketParts> parts_of(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                             BodyProtection protection) {
  if (packet.size() < associated_bytes + kTagBytes) {
    return make_error(protocol::Errc::BadArgument);
  }
  const std::size_t covered = packet.size() - kTagBytes;
  const std::size_t aad_bytes =
      protection == BodyProtection::AuthenticateOnly ? covered : associated_bytes;
  return PacketParts{packet.first(aad_bytes), packet.subspan(aad_bytes, covered - aad_bytes),
                     packet.last<kTagBytes>()};
}

}  // namespace

Result<PacketProtection> PacketProtection::create(const PacketKeys& keys) {
  auto seal_cipher = GcmPacketCipher::create(keys.key);
  if (!seal_cipher) return make_error(seal_cipher.error());
  auto open_cipher = GcmPacketCipher::create(keys.key);
  if (!open_cipher) return make_error(open_cipher.error());
  return PacketProtection(std::move(*seal_cipher), std::move(*open_cipher), keys.iv);
}

Result<void> PacketProtection::seal(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                                    std::uint64_t packet_number, BodyProtection protection) {
  auto parts = parts_of(packet, associated_bytes, protection);
  if (!parts) return make_error(parts.error());
  if (!seal_.seal(aead_nonce(iv_, packet_number), parts->aad, parts->text, parts->tag)) {
    return make_error(protocol::Errc::BadArgument);
  }
  return {};
}

Result<void> PacketProtection::open(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                                    std::uint64_t packet_number, BodyProtection protection) {
  auto parts = parts_of(packet, associated_bytes, protection);
  if (!parts) return make_error(parts.error());
  // A forged or damaged packet is expected traffic on an open UDP port, not a fault.
  if (!open_.open(aead_nonce(iv_, packet_number), parts->aad, parts->text, parts->tag)) {
    return make_error(Errc::PacketForged);
  }
  return {};
}

}  // namespace gridftp::security::udpx
