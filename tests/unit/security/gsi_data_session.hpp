// A pair of TlsEngines on the GSI data-channel contexts (PROT P) built from the test PKI, and
// the in-memory handshake between them: the set-up that the exporter and record-layer tests
// share.
#pragma once

#include <optional>

#include <catch2/catch.hpp>

#include "security/tls_contexts.hpp"
#include "security/tls_engine.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security::testing {

struct GsiDataSession {
  SslCtxPtr client_context;
  SslCtxPtr server_context;
  std::optional<TlsEngine> client;
  std::optional<TlsEngine> server;
};

// Before the handshake; `suite` (an OpenSSL TLS 1.3 suite name) limits both ends to it.
inline GsiDataSession make_gsi_data_session(const char* suite = nullptr) {
  GsiDataSession s;
  auto client_context = make_gsi_data_context(test_pki().user_proxy(), test_pki().trust_store(),
                                              TlsRole::Client, DataProtection::Private, false);
  auto server_context = make_gsi_data_context(test_pki().user_proxy(), test_pki().trust_store(),
                                              TlsRole::Server, DataProtection::Private, false);
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
  if (suite != nullptr) {
    REQUIRE(SSL_set_ciphersuites(s.client->native(), suite) == 1);
    REQUIRE(SSL_set_ciphersuites(s.server->native(), suite) == 1);
  }
  return s;
}

// Moves bytes between the two engines until both have finished the handshake.
inline void run_handshake(GsiDataSession& s) {
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

}  // namespace gridftp::security::testing
