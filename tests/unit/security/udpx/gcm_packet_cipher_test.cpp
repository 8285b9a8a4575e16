// AES-128-GCM over OpenSSL's GCM mode and an ECB block cipher (security/udpx/gcm_packet_cipher):
// the GCM specification's test case 4 (associated data, a text ending in a partial block), and
// packet-sized messages of every length around the keystream's batch, sealed and opened against
// OpenSSL's own AES-128-GCM through EVP, which shares none of the counter or batching code.
#include "security/udpx/gcm_packet_cipher.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <catch2/catch.hpp>
#include <openssl/evp.h>

#include "security/openssl_ptr.hpp"
#include "tests/unit/support/hex.hpp"

using namespace gridftp::security::udpx;
using gridftp::testing::from_hex;

namespace {

template <std::size_t N>
std::array<std::uint8_t, N> array_of(const std::vector<std::uint8_t>& bytes) {
  REQUIRE(bytes.size() == N);
  std::array<std::uint8_t, N> out{};
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

GcmPacketCipher cipher(const std::array<std::uint8_t, kKeyBytes>& key) {
  auto made = GcmPacketCipher::create(key);
  REQUIRE(made);
  return std::move(*made);
}

// OpenSSL's provider AES-128-GCM, one shot: ciphertext followed by the tag.
std::vector<std::uint8_t> evp_seal(const std::array<std::uint8_t, kKeyBytes>& key,
                                   const std::array<std::uint8_t, kIvBytes>& nonce,
                                   const std::vector<std::uint8_t>& aad,
                                   const std::vector<std::uint8_t>& text) {
  const gridftp::security::EvpCipherCtxPtr owned(EVP_CIPHER_CTX_new());
  EVP_CIPHER_CTX* context = owned.get();
  std::vector<std::uint8_t> out(text.size() + kTagBytes);
  int written = 0;
  REQUIRE(EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nullptr, key.data(), nonce.data()) == 1);
  REQUIRE(EVP_EncryptUpdate(context, nullptr, &written, aad.data(), static_cast<int>(aad.size())) ==
          1);
  if (!text.empty()) {
    REQUIRE(EVP_EncryptUpdate(context, out.data(), &written, text.data(),
                              static_cast<int>(text.size())) == 1);
  }
  REQUIRE(EVP_EncryptFinal_ex(context, out.data() + text.size(), &written) == 1);
  REQUIRE(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                              out.data() + text.size()) == 1);
  return out;
}

}  // namespace

TEST_CASE("GCM test case 4: associated data and a partial last block", "[udpx][crypto]") {
  const auto key = array_of<kKeyBytes>(from_hex("feffe9928665731c6d6a8f9467308308"));
  const auto nonce = array_of<kIvBytes>(from_hex("cafebabefacedbaddecaf888"));
  const auto aad = from_hex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
  auto text = from_hex(
      "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e24"
      "49a6b525b16aedf5aa0de657ba637b39");
  const auto plain = text;
  auto gcm = cipher(key);
  std::array<std::uint8_t, kTagBytes> tag{};
  REQUIRE(gcm.seal(nonce, aad, text, tag));
  CHECK(text == from_hex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514"
                         "b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"));
  CHECK(std::vector<std::uint8_t>(tag.begin(), tag.end()) ==
        from_hex("5bc94fbc3221a5db94fae95ae7121a47"));
  REQUIRE(gcm.open(nonce, aad, text, tag));
  CHECK(text == plain);
}

TEST_CASE("Packet-sized messages match OpenSSL's AES-GCM at every length around a batch",
          "[udpx][crypto]") {
  std::array<std::uint8_t, kKeyBytes> key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(3 * i + 1);
  auto gcm = cipher(key);
  const std::vector<std::uint8_t> aad(32, 0x5a);
  // Lengths around one 64-block keystream batch (1024 bytes), two batches and a UDPX body.
  for (std::size_t length : {1u, 15u, 16u, 17u, 1023u, 1024u, 1025u, 1404u, 2048u, 2049u, 4000u}) {
    std::array<std::uint8_t, kIvBytes> nonce{};
    for (std::size_t i = 0; i < nonce.size(); ++i) {
      nonce[i] = static_cast<std::uint8_t>(0xf0 + i + length);
    }
    std::vector<std::uint8_t> text(length);
    for (std::size_t i = 0; i < length; ++i) text[i] = static_cast<std::uint8_t>(i * 7 + length);
    const auto expected = evp_seal(key, nonce, aad, text);
    auto sealed = text;
    std::array<std::uint8_t, kTagBytes> tag{};
    REQUIRE(gcm.seal(nonce, aad, sealed, tag));
    sealed.insert(sealed.end(), tag.begin(), tag.end());
    INFO("length " << length);
    CHECK(sealed == expected);
    sealed.resize(length);
    REQUIRE(gcm.open(nonce, aad, sealed, tag));
    CHECK(sealed == text);
    tag[length % kTagBytes] ^= 1;
    CHECK_FALSE(gcm.open(nonce, aad, sealed, tag));
  }
}

TEST_CASE("GMAC: an empty text authenticates the associated data alone", "[udpx][crypto]") {
  std::array<std::uint8_t, kKeyBytes> key{};
  key[0] = 9;
  std::array<std::uint8_t, kIvBytes> nonce{};
  nonce[11] = 1;
  std::vector<std::uint8_t> aad(1436);
  for (std::size_t i = 0; i < aad.size(); ++i) aad[i] = static_cast<std::uint8_t>(i);
  auto gcm = cipher(key);
  std::array<std::uint8_t, kTagBytes> tag{};
  REQUIRE(gcm.seal(nonce, aad, {}, tag));
  const auto expected = evp_seal(key, nonce, aad, {});
  CHECK(std::vector<std::uint8_t>(tag.begin(), tag.end()) == expected);
  CHECK(gcm.open(nonce, aad, {}, tag));
  aad[700] ^= 0x80;
  CHECK_FALSE(gcm.open(nonce, aad, {}, tag));
}
