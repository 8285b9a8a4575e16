// TlsEngine's keying-material exporter, which gives every UDPX connection its secret
// (docs/UDPX.md §4.1): both ends of one session export the same bytes for one label and
// context, and different bytes for a different context or another session.
#include <array>
#include <optional>
#include <string_view>

#include <catch2/catch.hpp>

#include "security/tls_contexts.hpp"
#include "security/tls_engine.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace security = gridftp::security;
using security::TlsEngine;
using security::testing::test_pki;

namespace {
constexpr std::string_view kLabel = "EXPORTER-gridftp-udpx-v1";

struct Session {
  security::SslCtxPtr client_context;
  security::SslCtxPtr server_context;
  std::optional<TlsEngine> client;
  std::optional<TlsEngine> server;
};

Session make_session() {
  Session s;
  auto client_context = security::make_gsi_data_context(
      test_pki().user_proxy(), test_pki().trust_store(), security::TlsRole::Client,
      security::DataProtection::Private, false);
  auto server_context = security::make_gsi_data_context(
      test_pki().user_proxy(), test_pki().trust_store(), security::TlsRole::Server,
      security::DataProtection::Private, false);
  REQUIRE(client_context);
  REQUIRE(server_context);
  s.client_context = std::move(*client_context);
  s.server_context = std::move(*server_context);
  auto client = TlsEngine::create(s.client_context.get(), TlsEngine::Role::Client);
  auto server = TlsEngine::create(s.server_context.get(), TlsEngine::Role::Server);
  REQUIRE(client);
  REQUIRE(server);
  s.client.emplace(std::move(*client));
  s.server.emplace(std::move(*server));
  return s;
}

// Moves bytes between the two engines until both have finished the handshake.
void handshake(Session& s) {
  for (int round = 0; round < 20 && !(s.client->handshake_done() && s.server->handshake_done());
       ++round) {
    REQUIRE(s.client->handshake());
    REQUIRE(s.server->feed(s.client->take_output()));
    REQUIRE(s.server->handshake());
    REQUIRE(s.client->feed(s.server->take_output()));
  }
  REQUIRE(s.client->handshake_done());
  REQUIRE(s.server->handshake_done());
}

std::array<std::uint8_t, 32> exported(const TlsEngine& engine, std::uint8_t context_byte) {
  std::array<std::uint8_t, 16> context{};
  context.fill(context_byte);
  std::array<std::uint8_t, 32> out{};
  REQUIRE(engine.export_keying_material(kLabel, context, out));
  return out;
}
}  // namespace

TEST_CASE("Both ends of a TLS session export the same UDPX connection secret", "[udpx][crypto]") {
  auto session = make_session();
  std::array<std::uint8_t, 32> out{};
  // Before the handshake there is nothing to export.
  CHECK_FALSE(session.client->export_keying_material(kLabel, {}, out));
  handshake(session);
  const auto client_secret = exported(*session.client, 1);
  CHECK(client_secret == exported(*session.server, 1));
  CHECK(client_secret != std::array<std::uint8_t, 32>{});
  // A fresh random per connection gives a fresh secret.
  CHECK(client_secret != exported(*session.client, 2));
  // Another session, same credentials: another secret.
  auto other = make_session();
  handshake(other);
  CHECK(exported(*other.client, 1) != client_secret);
}
