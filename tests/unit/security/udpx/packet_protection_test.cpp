// AES-128-GCM packet protection (docs/UDPX.md §4.3): the GCM specification's test cases 1 and 2,
// a DATA-shaped packet computed independently with Python's `cryptography` AESGCM (32 bytes of
// associated data, nonce = IV XOR packet number), authenticate-only (GMAC) packets, and the
// tampering each mode must catch.
#include "security/udpx/packet_protection.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "security/security_errors.hpp"
#include "tests/unit/support/hex.hpp"

using namespace gridftp::security::udpx;
using gridftp::testing::from_hex;

namespace {

PacketKeys sample_keys() {
  PacketKeys keys;
  for (std::size_t i = 0; i < keys.key.size(); ++i) {
    keys.key[i] = static_cast<std::uint8_t>(i);
  }
  for (std::size_t i = 0; i < keys.iv.size(); ++i) {
    keys.iv[i] = static_cast<std::uint8_t>(0xa0 + i);
  }
  return keys;
}

constexpr std::uint64_t kPacketNumber = 0x0102030405;
const std::string kBody = "one UDPX block of file data";

// [32 bytes 0x20..0x3f | body | 16 bytes for the tag]
std::vector<std::uint8_t> data_packet() {
  std::vector<std::uint8_t> packet;
  for (std::uint8_t b = 0x20; b < 0x40; ++b) {
    packet.push_back(b);
  }
  packet.insert(packet.end(), kBody.begin(), kBody.end());
  packet.resize(packet.size() + kTagBytes);
  return packet;
}

PacketProtection protection(const PacketKeys& keys) {
  auto made = PacketProtection::create(keys);
  REQUIRE(made);
  return std::move(*made);
}
}  // namespace

TEST_CASE("GCM test cases 1 and 2 (zero key, zero nonce)", "[udpx][crypto]") {
  auto aead = protection(PacketKeys{});
  std::vector<std::uint8_t> empty(kTagBytes);
  REQUIRE(aead.seal(empty, 0, 0, BodyProtection::Encrypt));
  CHECK(empty == from_hex("58e2fccefa7e3061367f1d57a4e7455a"));
  std::vector<std::uint8_t> block(16 + kTagBytes);
  REQUIRE(aead.seal(block, 0, 0, BodyProtection::Encrypt));
  CHECK(block == from_hex("0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf"));
  REQUIRE(aead.open(block, 0, 0, BodyProtection::Encrypt));
  CHECK(std::all_of(block.begin(), block.begin() + 16, [](std::uint8_t b) { return b == 0; }));
}

TEST_CASE("A sealed DATA packet matches an independent AES-GCM and opens again", "[udpx][crypto]") {
  auto aead = protection(sample_keys());
  auto packet = data_packet();
  REQUIRE(aead.seal(packet, 32, kPacketNumber, BodyProtection::Encrypt));
  const std::vector<std::uint8_t> sealed(packet.begin() + 32, packet.end());
  CHECK(sealed == from_hex("123f8396d4cfaf62693f09fd5ccb5ea7d7e7be4355a59feded89aa1aba92b09abf40"
                           "a12d938d60a0e30603"));
  REQUIRE(aead.open(packet, 32, kPacketNumber, BodyProtection::Encrypt));
  CHECK(std::string(packet.begin() + 32, packet.end() - 16) == kBody);
}

TEST_CASE("Authenticate-only leaves the body clear and tags header and body", "[udpx][crypto]") {
  auto aead = protection(sample_keys());
  auto packet = data_packet();
  REQUIRE(aead.seal(packet, 32, kPacketNumber, BodyProtection::AuthenticateOnly));
  CHECK(std::string(packet.begin() + 32, packet.end() - 16) == kBody);
  CHECK(std::vector<std::uint8_t>(packet.end() - 16, packet.end()) ==
        from_hex("54234af9c253e411841886d2ae84adc8"));
  REQUIRE(aead.open(packet, 32, kPacketNumber, BodyProtection::AuthenticateOnly));
  // A flipped body bit is caught even though the body was never encrypted.
  packet[40] ^= 0x01;
  auto opened = aead.open(packet, 32, kPacketNumber, BodyProtection::AuthenticateOnly);
  REQUIRE_FALSE(opened);
  CHECK(opened.error() == gridftp::security::Errc::PacketForged);
}

TEST_CASE("Opening fails for any change of header, body, tag, number or key", "[udpx][crypto]") {
  const auto keys = sample_keys();
  auto sender = protection(keys);
  auto sealed = data_packet();
  REQUIRE(sender.seal(sealed, 32, kPacketNumber, BodyProtection::Encrypt));
  auto receiver = protection(keys);
  for (std::size_t at : {std::size_t{0}, std::size_t{31}, std::size_t{32}, sealed.size() - 1}) {
    auto packet = sealed;
    packet[at] ^= 0x80;
    INFO("byte " << at);
    auto opened = receiver.open(packet, 32, kPacketNumber, BodyProtection::Encrypt);
    REQUIRE_FALSE(opened);
    CHECK(opened.error() == gridftp::security::Errc::PacketForged);
  }
  auto packet = sealed;
  CHECK_FALSE(receiver.open(packet, 32, kPacketNumber + 1, BodyProtection::Encrypt));
  PacketKeys other = keys;
  other.key[0] ^= 1;
  auto stranger = protection(other);
  packet = sealed;
  CHECK_FALSE(stranger.open(packet, 32, kPacketNumber, BodyProtection::Encrypt));
  // A failed open leaves the context ready for the next packet.
  packet = sealed;
  CHECK(receiver.open(packet, 32, kPacketNumber, BodyProtection::Encrypt));
}

TEST_CASE("Packets too short for their tag are refused, not read past", "[udpx][crypto]") {
  auto aead = protection(sample_keys());
  std::vector<std::uint8_t> short_packet(32 + kTagBytes - 1);
  CHECK_FALSE(aead.seal(short_packet, 32, 0, BodyProtection::Encrypt));
  CHECK_FALSE(aead.open(short_packet, 32, 0, BodyProtection::Encrypt));
}
