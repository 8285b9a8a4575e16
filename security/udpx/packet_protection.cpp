#include "security/udpx/packet_protection.hpp"

#include <climits>

#include <openssl/err.h>

#include "protocol/core/errors.hpp"
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

std::array<std::uint8_t, kIvBytes> PacketProtection::nonce(std::uint64_t packet_number) const {
  std::array<std::uint8_t, kIvBytes> nonce = iv_;
  for (std::size_t i = 0; i < 8; ++i) {
    nonce[kIvBytes - 1 - i] ^= static_cast<std::uint8_t>(packet_number >> (8 * i));
  }
  return nonce;
}

Result<void> PacketProtection::seal(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                                    std::uint64_t packet_number, BodyProtection protection) {
  if (packet.size() < associated_bytes + kTagBytes || !fits_int(packet.size())) {
    return make_error(protocol::Errc::BadArgument);
  }
  const std::size_t body_bytes = packet.size() - associated_bytes - kTagBytes;
  std::uint8_t* body = packet.data() + associated_bytes;
  const auto iv = nonce(packet_number);
  EVP_CIPHER_CTX* context = seal_.get();
  int written = 0;
  // Authenticate-only: header and body are all associated data (GMAC), nothing is encrypted.
  const std::size_t aad_bytes = protection == BodyProtection::AuthenticateOnly
                                    ? associated_bytes + body_bytes
                                    : associated_bytes;
  bool ok = EVP_EncryptInit_ex(context, nullptr, nullptr, nullptr, iv.data()) == 1 &&
            EVP_EncryptUpdate(context, nullptr, &written, packet.data(),
                              static_cast<int>(aad_bytes)) == 1;
  if (ok && protection == BodyProtection::Encrypt && body_bytes > 0) {
    ok = EVP_EncryptUpdate(context, body, &written, body, static_cast<int>(body_bytes)) == 1;
  }
  ok = ok && EVP_EncryptFinal_ex(context, body + body_bytes, &written) == 1 &&
       EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                           body + body_bytes) == 1;
  if (!ok) {
    return make_error(openssl_error());
  }
  return {};
}

Result<void> PacketProtection::open(std::span<std::uint8_t> packet, std::size_t associated_bytes,
                                    std::uint64_t packet_number, BodyProtection protection) {
  if (packet.size() < associated_bytes + kTagBytes || !fits_int(packet.size())) {
    return make_error(protocol::Errc::BadArgument);
  }
  const std::size_t body_bytes = packet.size() - associated_bytes - kTagBytes;
  std::uint8_t* body = packet.data() + associated_bytes;
  const auto iv = nonce(packet_number);
  EVP_CIPHER_CTX* context = open_.get();
  int written = 0;
  const std::size_t aad_bytes = protection == BodyProtection::AuthenticateOnly
                                    ? associated_bytes + body_bytes
                                    : associated_bytes;
  bool ok = EVP_DecryptInit_ex(context, nullptr, nullptr, nullptr, iv.data()) == 1 &&
            EVP_DecryptUpdate(context, nullptr, &written, packet.data(),
                              static_cast<int>(aad_bytes)) == 1;
  if (ok && protection == BodyProtection::Encrypt && body_bytes > 0) {
    ok = EVP_DecryptUpdate(context, body, &written, body, static_cast<int>(body_bytes)) == 1;
  }
  ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                                 body + body_bytes) == 1;
  if (!ok) {
    return make_error(openssl_error());
  }
  if (EVP_DecryptFinal_ex(context, body + body_bytes, &written) != 1) {
    // A forged or damaged packet: expected traffic on an open UDP port, not an OpenSSL fault.
    ERR_clear_error();
    return make_error(Errc::PacketForged);
  }
  return {};
}

}  // namespace gridftp::security::udpx
