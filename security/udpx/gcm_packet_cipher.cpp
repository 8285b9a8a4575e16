#include "security/udpx/gcm_packet_cipher.hpp"

#include <algorithm>
#include <cstring>

#include "security/openssl_error.hpp"

namespace gridftp::security::udpx {
namespace {

constexpr std::size_t kAesBlockBytes = 16;
// Counter blocks enciphered per EVP call: enough for AES-NI's eight-block pipeline to stay full
// and for a 1400-byte packet in two calls, small enough for the stack.
constexpr std::size_t kKeystreamBlocks = 64;

EVP_CIPHER_CTX* aes_of(const void* key) {
  // The mode hands back the pointer it was given at creation: our ECB context.
  return static_cast<EVP_CIPHER_CTX*>(const_cast<void*>(key));
}

void encipher_blocks(EVP_CIPHER_CTX* aes, const std::uint8_t* in, std::uint8_t* out,
                     std::size_t bytes) {
  int written = 0;
  // ECB on whole blocks with padding off cannot fail once keyed.
  EVP_EncryptUpdate(aes, out, &written, in, static_cast<int>(bytes));
}

// block128_f: the mode's single-block cipher (the hash key H and the tag's mask E(K, Y0)).
void encipher_one(const unsigned char in[16], unsigned char out[16], const void* key) {
  encipher_blocks(aes_of(key), in, out, kAesBlockBytes);
}

// ctr128_f: `blocks` blocks of CTR keystream XOR `in`, counting up from `counter` in its low 32
// bits, big-endian (SP 800-38D §6.5, inc32).
void ctr32_xor(const unsigned char* in, unsigned char* out, std::size_t blocks, const void* key,
               const unsigned char counter[16]) {
  alignas(16) std::array<std::uint8_t, kKeystreamBlocks * kAesBlockBytes> counters;
  alignas(16) std::array<std::uint8_t, kKeystreamBlocks * kAesBlockBytes> keystream;
  std::uint32_t count = (std::uint32_t{counter[12]} << 24) | (std::uint32_t{counter[13]} << 16) |
                        (std::uint32_t{counter[14]} << 8) | std::uint32_t{counter[15]};
  while (blocks > 0) {
    const std::size_t now = std::min(blocks, kKeystreamBlocks);
    for (std::size_t b = 0; b < now; ++b, ++count) {
      std::uint8_t* block = counters.data() + b * kAesBlockBytes;
      std::memcpy(block, counter, 12);
      block[12] = static_cast<std::uint8_t>(count >> 24);
      block[13] = static_cast<std::uint8_t>(count >> 16);
      block[14] = static_cast<std::uint8_t>(count >> 8);
      block[15] = static_cast<std::uint8_t>(count);
    }
    const std::size_t bytes = now * kAesBlockBytes;
    encipher_blocks(aes_of(key), counters.data(), keystream.data(), bytes);
    // Word by word: whole blocks, and -O2 does not vectorize a byte loop here.
    for (std::size_t i = 0; i < bytes; i += sizeof(std::uint64_t)) {
      std::uint64_t word = 0;
      std::uint64_t key_word = 0;
      std::memcpy(&word, in + i, sizeof word);
      std::memcpy(&key_word, keystream.data() + i, sizeof key_word);
      word ^= key_word;
      std::memcpy(out + i, &word, sizeof word);
    }
    in += bytes;
    out += bytes;
    blocks -= now;
  }
}

}  // namespace

Result<GcmPacketCipher> GcmPacketCipher::create(const std::array<std::uint8_t, kKeyBytes>& key) {
  EvpCipherCtxPtr aes(EVP_CIPHER_CTX_new());
  const EvpCipherPtr ecb(EVP_CIPHER_fetch(nullptr, "AES-128-ECB", nullptr));
  if (!aes || !ecb ||
      EVP_EncryptInit_ex2(aes.get(), ecb.get(), key.data(), nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_set_padding(aes.get(), 0) != 1) {
    return make_error(openssl_error());
  }
  Gcm128ContextPtr gcm(CRYPTO_gcm128_new(aes.get(), &encipher_one));
  if (!gcm) return make_error(openssl_error());
  return GcmPacketCipher(std::move(aes), std::move(gcm));
}

bool GcmPacketCipher::seal(const std::array<std::uint8_t, kIvBytes>& nonce,
                           std::span<const std::uint8_t> aad, std::span<std::uint8_t> text,
                           std::span<std::uint8_t, kTagBytes> tag) {
  // The mode refuses only messages past GCM's length limits (2^36 bytes of text).
  CRYPTO_gcm128_setiv(gcm_.get(), nonce.data(), nonce.size());
  if (CRYPTO_gcm128_aad(gcm_.get(), aad.data(), aad.size()) != 0 ||
      (!text.empty() && CRYPTO_gcm128_encrypt_ctr32(gcm_.get(), text.data(), text.data(),
                                                    text.size(), &ctr32_xor) != 0)) {
    return false;
  }
  CRYPTO_gcm128_tag(gcm_.get(), tag.data(), tag.size());
  return true;
}

bool GcmPacketCipher::open(const std::array<std::uint8_t, kIvBytes>& nonce,
                           std::span<const std::uint8_t> aad, std::span<std::uint8_t> text,
                           std::span<const std::uint8_t, kTagBytes> tag) {
  CRYPTO_gcm128_setiv(gcm_.get(), nonce.data(), nonce.size());
  if (CRYPTO_gcm128_aad(gcm_.get(), aad.data(), aad.size()) != 0 ||
      (!text.empty() && CRYPTO_gcm128_decrypt_ctr32(gcm_.get(), text.data(), text.data(),
                                                    text.size(), &ctr32_xor) != 0)) {
    return false;
  }
  return CRYPTO_gcm128_finish(gcm_.get(), tag.data(), tag.size()) == 0;
}

}  // namespace gridftp::security::udpx
