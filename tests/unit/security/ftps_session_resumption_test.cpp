// FTPS client contexts (gridcp ftps://): data connections resume the control connection's TLS
// session, as vsftpd's require_ssl_reuse demands (RFC 4217 §10.2); --ftps-ca loads the CAs from
// a file or a hashed directory; --ftps-insecure checks nothing.
#include <filesystem>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "security/tls_contexts.hpp"
#include "security/tls_engine.hpp"
#include "tests/unit/security/temp_dir.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace security = gridftp::security;
using security::TlsEngine;
using security::testing::test_pki;

namespace {

struct Pair {
  std::optional<TlsEngine> client;
  std::optional<TlsEngine> server;
};

Pair make_pair(SSL_CTX* client_context, SSL_CTX* server_context) {
  auto client = TlsEngine::create(client_context, TlsEngine::Role::Client);
  auto server = TlsEngine::create(server_context, TlsEngine::Role::Server);
  REQUIRE(client);
  REQUIRE(server);
  REQUIRE(client->expect_host("localhost"));
  return Pair{std::move(*client), std::move(*server)};
}

// Moves bytes between the engines until both are done or one fails; true when both are done.
bool handshake(Pair& pair) {
  for (int round = 0; round < 20; ++round) {
    if (pair.client->handshake_done() && pair.server->handshake_done()) return true;
    if (!pair.client->handshake()) return false;
    if (!pair.server->feed(pair.client->take_output())) return false;
    if (!pair.server->handshake()) return false;
    if (!pair.client->feed(pair.server->take_output())) return false;
  }
  return pair.client->handshake_done() && pair.server->handshake_done();
}

// The server's first reply after the handshake; the client reading it takes in the TLS 1.3
// session tickets that came before it, as gridcp's control connection does with its replies.
void server_says_hello(Pair& pair) {
  const std::string hello = "200 ok\r\n";
  auto written = pair.server->write(hello);
  REQUIRE(written);
  REQUIRE(*written == hello.size());
  REQUIRE(pair.client->feed(pair.server->take_output()));
  char plain[64];
  auto got = pair.client->read(plain);
  REQUIRE(got);
  CHECK(std::string(plain, *got) == hello);
}

security::SslCtxPtr server_context() {
  auto context = security::make_ftps_server_context(test_pki().host());
  REQUIRE(context);
  return std::move(*context);
}

// The test CA, written as OpenSSL's hashed directory (<hash>.0 and Globus's extra files).
std::filesystem::path write_cert_dir(const std::filesystem::path& dir) {
  return test_pki().write_files(dir).cert_dir;
}

// The CA's certificate file in that directory.
std::string ca_file_in(const std::filesystem::path& cert_dir) {
  for (const auto& entry : std::filesystem::directory_iterator(cert_dir)) {
    if (entry.path().extension() == ".0") return entry.path().string();
  }
  FAIL("no <hash>.0 in " << cert_dir);
  return {};
}

}  // namespace

TEST_CASE("An FTPS data connection resumes the control connection's session", "[security][ftps]") {
  security::testing::TempDir dir;
  auto client_context =
      security::make_ftps_client_context({ca_file_in(write_cert_dir(dir.path())), true});
  REQUIRE(client_context);
  const auto server = server_context();
  auto control = make_pair(client_context->get(), server.get());
  REQUIRE(handshake(control));
  CHECK_FALSE(control.client->session_reused());
  server_says_hello(control);
  auto session = control.client->resumable_session();
  REQUIRE(session);
  // Every data connection of the session resumes it, one after another, each ending without
  // close_notify (as a cut data connection does).
  for (int connection = 0; connection < 3; ++connection) {
    auto data = make_pair(client_context->get(), server.get());
    INFO("connection " << connection);
    REQUIRE(data.client->resume(session.get()));
    REQUIRE(handshake(data));
    CHECK(data.client->session_reused());
    CHECK(data.server->session_reused());
  }
  // Without it, a full handshake.
  auto fresh = make_pair(client_context->get(), server.get());
  REQUIRE(handshake(fresh));
  CHECK_FALSE(fresh.server->session_reused());
}

TEST_CASE("The FTPS CA option takes a hashed directory as well as a file", "[security][ftps]") {
  security::testing::TempDir dir;
  // OpenSSL finds a CA in a directory by its subject hash, <hash>.0 (openssl rehash).
  auto client_context =
      security::make_ftps_client_context({write_cert_dir(dir.path()).string(), true});
  REQUIRE(client_context);
  const auto server = server_context();
  auto pair = make_pair(client_context->get(), server.get());
  CHECK(handshake(pair));
}

TEST_CASE("An FTPS client refuses a server its CAs do not vouch for, unless insecure",
          "[security][ftps]") {
  security::testing::TempDir dir;
  const auto server = server_context();
  // An empty directory of CAs: nothing vouches for the test host.
  auto strict = security::make_ftps_client_context({dir.path().string(), true});
  REQUIRE(strict);
  auto refused = make_pair(strict->get(), server.get());
  CHECK_FALSE(handshake(refused));
  auto insecure = security::make_ftps_client_context({"", false});
  REQUIRE(insecure);
  auto accepted = make_pair(insecure->get(), server.get());
  CHECK(handshake(accepted));
  // A missing file is an error at once, not a handshake that fails later.
  CHECK_FALSE(security::make_ftps_client_context({(dir.path() / "missing.pem").string(), true}));
}
