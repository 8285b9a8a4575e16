// TlsEngine's keying-material exporter, which gives every UDPX connection its secret
// (docs/UDPX.md §4.1): both ends of one session export the same bytes for one label and
// context, and different bytes for a different context or another session.
#include <array>
#include <optional>
#include <string_view>

#include <catch2/catch.hpp>

#include "security/tls_contexts.hpp"
#include "security/tls_engine.hpp"
#include "tests/unit/security/gsi_data_session.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace security = gridftp::security;
using security::TlsEngine;
using security::testing::test_pki;

namespace {
constexpr std::string_view kLabel = "EXPORTER-gridftp-udpx-v1";

using Session = security::testing::GsiDataSession;
using security::testing::make_gsi_data_session;
using security::testing::run_handshake;

std::array<std::uint8_t, 32> exported(const TlsEngine& engine, std::uint8_t context_byte) {
  std::array<std::uint8_t, 16> context{};
  context.fill(context_byte);
  std::array<std::uint8_t, 32> out{};
  REQUIRE(engine.export_keying_material(kLabel, context, out));
  return out;
}
}  // namespace

TEST_CASE("Both ends of a TLS session export the same UDPX connection secret", "[udpx][crypto]") {
  auto session = make_gsi_data_session();
  std::array<std::uint8_t, 32> out{};
  // Before the handshake there is nothing to export.
  CHECK_FALSE(session.client->export_keying_material(kLabel, {}, out));
  run_handshake(session);
  const auto client_secret = exported(*session.client, 1);
  CHECK(client_secret == exported(*session.server, 1));
  CHECK(client_secret != std::array<std::uint8_t, 32>{});
  // A fresh random per connection gives a fresh secret.
  CHECK(client_secret != exported(*session.client, 2));
  // Another session, same credentials: another secret.
  auto other = make_gsi_data_session();
  run_handshake(other);
  CHECK(exported(*other.client, 1) != client_secret);
}
