// AES-128-GCM (NIST SP 800-38D) for many short messages under one key, with a per-message cost
// of the mode's own work only. OpenSSL's EVP interface spends about 300 ns of every ~1400-byte
// UDPX packet on setting the nonce and reading the tag through named parameters, 40 % of the
// packet's protection (bench/README.md, "Packet protection without EVP's per-packet cost").
// Here OpenSSL's GCM mode (CRYPTO_gcm128_*, with its carry-less-multiply GHASH) runs over
// AES-128 that EVP computes in ECB: the nonce's counter block and the CTR keystream are
// enciphered in one EVP call per message part, with no parameters to look up. Output is bit
// for bit AES-GCM's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"
#include "security/udpx/key_schedule.hpp"

namespace gridftp::security::udpx {

// Key and nonce are the key schedule's key and IV sizes (kKeyBytes, kIvBytes).
inline constexpr std::size_t kTagBytes = 16;

class GcmPacketCipher {
 public:
  static Result<GcmPacketCipher> create(const std::array<std::uint8_t, kKeyBytes>& key);

  // One message: `aad` authenticated, `text` enciphered (seal) or deciphered (open) in place;
  // an empty `text` makes it GMAC. seal writes the tag; open compares it in constant time and
  // returns false when it does not match (the text then holds nothing usable). Both return
  // false for a message past GCM's length limits.
  bool seal(const std::array<std::uint8_t, kIvBytes>& nonce, std::span<const std::uint8_t> aad,
            std::span<std::uint8_t> text, std::span<std::uint8_t, kTagBytes> tag);
  bool open(const std::array<std::uint8_t, kIvBytes>& nonce, std::span<const std::uint8_t> aad,
            std::span<std::uint8_t> text, std::span<const std::uint8_t, kTagBytes> tag);

 private:
  GcmPacketCipher(EvpCipherCtxPtr aes, Gcm128ContextPtr gcm)
      : aes_(std::move(aes)), gcm_(std::move(gcm)) {}

  // The ECB context lives on the heap, so the GCM context's pointer to it survives moves.
  EvpCipherCtxPtr aes_;
  Gcm128ContextPtr gcm_;
};

}  // namespace gridftp::security::udpx
