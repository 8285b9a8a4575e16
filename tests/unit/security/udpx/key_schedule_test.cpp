// The UDPX key schedule (docs/UDPX.md §4.2). HKDF and the label encoding are checked against
// RFC 8448's TLS 1.3 trace (same construction, "tls13 " prefix); the UDPX secrets against values
// computed independently with Python's `cryptography` HKDF.
#include "security/udpx/key_schedule.hpp"

#include <array>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/unit/support/hex.hpp"

using namespace gridftp::security::udpx;
using gridftp::testing::from_hex;

namespace {
template <std::size_t N>
std::vector<std::uint8_t> bytes(const std::array<std::uint8_t, N>& array) {
  return {array.begin(), array.end()};
}
}  // namespace

TEST_CASE("HKDF-Extract and Expand-Label reproduce RFC 8448's early and derived secrets",
          "[udpx][crypto]") {
  const std::array<std::uint8_t, 32> zeros{};
  auto early = hkdf_extract({}, zeros);
  REQUIRE(early);
  CHECK(bytes(*early) ==
        from_hex("33ad0a1c607ec03b09e6cd9893680ce210adf300aa1f2660e1b22e10f170f92a"));
  // Derive-Secret(early, "derived", "") has SHA-256("") as its context.
  const auto empty_hash =
      from_hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  std::array<std::uint8_t, 32> derived{};
  REQUIRE(hkdf_expand_label(*early, "tls13 derived", empty_hash, derived));
  CHECK(bytes(derived) ==
        from_hex("6f2615a108c702c5678f54fc9dbab69716c076189c48250cebeac3576c3611ba"));
  // The handshake secret: Extract with the derived secret as salt and the (EC)DHE secret.
  const auto shared = from_hex("8bd4054fb55b9d63fdfbacf9f04b9f0d35e6d63f537563efd46272900f89492d");
  auto handshake = hkdf_extract(derived, shared);
  REQUIRE(handshake);
  CHECK(bytes(*handshake) ==
        from_hex("1dc826e93606aa6fdc0aadc12f741b01046aa6b99f691ed221a9f0ca043fbeac"));
}

TEST_CASE("Expand-Label makes RFC 8448's server handshake key and IV", "[udpx][crypto]") {
  const auto secret = from_hex("b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38");
  std::array<std::uint8_t, 16> key{};
  std::array<std::uint8_t, 12> iv{};
  REQUIRE(hkdf_expand_label(secret, "tls13 key", {}, key));
  REQUIRE(hkdf_expand_label(secret, "tls13 iv", {}, iv));
  CHECK(bytes(key) == from_hex("3fce516009c21727d0f2e4e86ee403bc"));
  CHECK(bytes(iv) == from_hex("5d313eb2671276ee13000b30"));
}

TEST_CASE("A UDPX connection's secrets, keys and key update", "[udpx][crypto]") {
  Secret connection{};
  connection.fill(0x11);
  const std::array<std::uint8_t, 16> random_active{0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
                                                   0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa};
  std::array<std::uint8_t, 16> random_passive{};
  random_passive.fill(0xbb);
  auto secrets = derive_connection_secrets(connection, random_active, random_passive);
  REQUIRE(secrets);
  CHECK(bytes(secrets->handshake_a2p) ==
        from_hex("429c4888ea2ba08cfc988af84ae363b7542db7d46510de8ebb02560b9c561494"));
  CHECK(bytes(secrets->handshake_p2a) ==
        from_hex("f17468aecd4d330908fffdb31167d6866ba75ea92a51cf9869b44309d54b1dd2"));
  CHECK(bytes(secrets->traffic_a2p) ==
        from_hex("ce3ee96bca3d319bae501acfb099177c32d467cd3652141bd489562f9338d0ec"));
  CHECK(bytes(secrets->traffic_p2a) ==
        from_hex("847e1233ac25d1c57cd5c75ba3a77cdbc93e0f16e68f784a8368e0e2a047a4b4"));
  auto keys = derive_packet_keys(secrets->traffic_a2p);
  REQUIRE(keys);
  CHECK(bytes(keys->key) == from_hex("0bea049b89cb13b8dd84ab4c46bd8504"));
  CHECK(bytes(keys->iv) == from_hex("da7fe079238632505d033411"));
  auto next = next_traffic_secret(secrets->traffic_a2p);
  REQUIRE(next);
  CHECK(bytes(*next) ==
        from_hex("7f8e3c73d4ad3d255bebb59edcd17181d1869c4818e0f1b0975f05ae495991ec"));
}

TEST_CASE("Different HELLO randoms give different traffic secrets, same handshake secrets",
          "[udpx][crypto]") {
  Secret connection{};
  connection.fill(0x11);
  std::array<std::uint8_t, 16> random_active{};
  std::array<std::uint8_t, 16> random_passive{};
  auto first = derive_connection_secrets(connection, random_active, random_passive);
  random_passive[15] = 1;
  auto second = derive_connection_secrets(connection, random_active, random_passive);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->handshake_a2p == second->handshake_a2p);
  CHECK(first->traffic_a2p != second->traffic_a2p);
  CHECK(first->traffic_p2a != second->traffic_p2a);
  CHECK(first->traffic_a2p != first->traffic_p2a);
}

TEST_CASE("Expand-Label refuses outputs longer than its length field allows", "[udpx][crypto]") {
  Secret secret{};
  std::vector<std::uint8_t> too_long(256);
  CHECK_FALSE(hkdf_expand_label(secret, "udpx key", {}, too_long));
}
