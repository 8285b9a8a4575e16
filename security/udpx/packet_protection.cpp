#include "security/udpx/packet_protection.hpp"

#include <climits>

#include <openssl/err.h>

#include "protocol/core/errors.hpp"
#include "security/aead_nonce.hpp"
#include "security/openssl_error.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security::udpx {
namespace {

bool fits_int(std::size_t bytes) { return bytes <= static_cast<std::size_t>(INT_MAX); }

Result<EvpCipherCtxPtr> keyed_context(const EVP_CIPHER* cipher, const PacketKeys& keys,
                                      bool encrypt) {
  EvpCipherCtxPtr context(EVP_CIPHER_CTX_new());
  if (!context || EVP_CipherInit_ex2(context.get(), cipher, keys.key.data(), nullptr,
                                     encrypt ? 1 : 0, nullptr) != 1) {
    return make_error(openssl_error());
  }
  return context;
}

}  // namespace

Result<PacketProtection> PacketProtection::create(const PacketKeys& keys) {
  const EvpCipherPtr cipher(EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr));
  if (!cipher) {
    return make_error(openssl_error());
  }
  auto seal_context = keyed_context(cipher.get(), keys, true);
  if (!seal_context) {
    return make_error(seal_context.error());
  }
  auto open_context = keyed_context(cipher.get(), keys, false);
  if (!open_context) {
    return make_error(open_context.error());
  }
  return PacketProtection(std::move(*seal_context), std::move(*open_context), keys.iv);
}

Result<std::uint8_t*> PacketProtection::start(EVP_CIPHER_CTX* context,
                                              std::span<std::uint8_t> packet,
                                              std::size_t associated_bytes,
                                              std::uint64_t packet_number,
                                              BodyProtection protection) const {
  if (packet.size() < associated_bytes + kTagBytes || !fits_int(packet.size())) {
    return make_error(protocol::Errc::BadArgument);
  }
  const std::size_t body_bytes = packet.size() - associated_bytes - kTagBytes;
  std::uint8_t* body = packet.data() + associated_bytes;
  const auto iv = aead_nonce(iv_, packet_number);
  int written = 0;
  // Authenticate-only: header and body are all associated data (GMAC), nothing is encrypted.
  // The context was keyed for one direction, so the same calls seal or open.
  const std::size_t aad_bytes = protection == BodyProtection::AuthenticateOnly
                                    ? associated_bytes + body_bytes
                                    : associated_bytes;
  bool ok =
      EVP_CipherInit_ex(context, nullptr, nullptr, nullptr, iv.data(), -1) == 1 &&
      EVP_CipherUpdate(context, nullptr, &written, packet.data(), static_cast<int>(aad_bytes)) == 1;
  if (ok && protection == BodyProtection::Encrypt && body_bytes > 0) {
    ok = EVP_CipherUpdate(context, body, &written, body, static_cast<int>(body_bytes)) == 1;
  }
  if (!ok) return make_error(openssl_error());
  return body + body_bytes;  // where the tag goes
}

Result<void> PacketProtection::seal(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                                    std::uint64_t packet_number, BodyProtection protection) {
  auto tag = start(seal_.get(), packet, associated_bytes, packet_number, protection);
  if (!tag) return make_error(tag.error());
  int written = 0;
  if (EVP_EncryptFinal_ex(seal_.get(), *tag, &written) != 1 ||
      EVP_CIPHER_CTX_ctrl(seal_.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes), *tag) !=
          1) {
    return make_error(openssl_error());
  }
  return {};
}

Result<void> PacketProtection::open(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                                    std::uint64_t packet_number, BodyProtection protection) {
  auto tag = start(open_.get(), packet, associated_bytes, packet_number, protection);
  if (!tag) return make_error(tag.error());
  if (EVP_CIPHER_CTX_ctrl(open_.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes), *tag) !=
      1) {
    return make_error(openssl_error());
  }
  int written = 0;
  if (EVP_DecryptFinal_ex(open_.get(), *tag, &written) != 1) {
    // A forged or damaged packet: expected traffic on an open UDP port, not an OpenSSL fault.
    ERR_clear_error();
    return make_error(Errc::PacketForged);
  }
  return {};
}

}  // namespace gridftp::security::udpx
