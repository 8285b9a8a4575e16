// Every kind of handshake through the one driver (transport::drive_handshake), both ends on an
// in-process socket pair instead of the network: GSI for DCAU data connections (PROT C and P),
// GSI for the control channel with delegation, and plain TLS for FTPS; plus the peer that hangs
// up mid-handshake and the peer that does not speak TLS.
#include "transport/handshake_driver.hpp"

#include <memory>
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "security/gsi_handshake.hpp"
#include "security/tls_contexts.hpp"
#include "tests/unit/security/test_pki.hpp"
#include "transport/error_conversion.hpp"

namespace {

namespace asio = gridftp::transport::asio;
namespace security = gridftp::security;
using gridftp::Result;
using gridftp::security::testing::test_pki;
using Stream = asio::local::stream_protocol::socket;

struct Ends {
  asio::io_context io;
  Stream initiator{io};
  Stream acceptor{io};
  Ends() { asio::local::connect_pair(initiator, acceptor); }
};

// Runs the driver on `stream` and, once it completes, writes `after` (raw bytes) behind it.
gridftp::transport::awaitable<void> drive(Stream* stream, security::Handshake* handshake,
                                          bool initiator, std::string after,
                                          std::optional<Result<std::string>>* out) {
  out->emplace(co_await gridftp::transport::drive_handshake(*stream, *handshake, initiator));
  if (!**out) {
    stream->close();  // as both programs do with a connection whose handshake failed
    co_return;
  }
  if (!after.empty()) {
    co_await asio::async_write(*stream, asio::buffer(after), gridftp::transport::use_awaitable);
  }
}

struct Outcome {
  std::optional<Result<std::string>> initiator;
  std::optional<Result<std::string>> acceptor;
};

Outcome run_both(Ends& ends, security::Handshake& initiator, security::Handshake& acceptor,
                 std::string initiator_after = {}) {
  Outcome outcome;
  asio::co_spawn(
      ends.io,
      drive(&ends.initiator, &initiator, true, std::move(initiator_after), &outcome.initiator),
      asio::detached);
  asio::co_spawn(ends.io, drive(&ends.acceptor, &acceptor, false, {}, &outcome.acceptor),
                 asio::detached);
  ends.io.run();
  REQUIRE(outcome.initiator.has_value());
  REQUIRE(outcome.acceptor.has_value());
  return outcome;
}

std::string read_exactly(Stream& stream, std::size_t bytes) {
  std::string out(bytes, '\0');
  asio::read(stream, asio::buffer(out));
  return out;
}

security::SslCtxPtr data_context(security::TlsRole role, security::DataProtection protection) {
  auto context = security::make_gsi_data_context(test_pki().user_proxy(), test_pki().trust_store(),
                                                 role, protection, false);
  REQUIRE(context);
  return std::move(*context);
}

security::GsiHandshake gsi(const security::SslCtxPtr& context, security::TlsEngine::Role role,
                           security::GsiOptions options) {
  auto handshake = security::GsiHandshake::create(context.get(), role, options);
  REQUIRE(handshake);
  return std::move(*handshake);
}

}  // namespace

TEST_CASE("DCAU PROT C through the driver hands back the raw bytes behind the flag",
          "[transport][handshake]") {
  const auto client = data_context(security::TlsRole::Client, security::DataProtection::Clear);
  const auto server = data_context(security::TlsRole::Server, security::DataProtection::Clear);
  auto initiator = gsi(client, security::TlsEngine::Role::Client, {});
  auto acceptor = gsi(server, security::TlsEngine::Role::Server, {});
  Ends ends;
  const std::string raw = "MODE E bytes, in the clear";
  auto outcome = run_both(ends, initiator, acceptor, raw);
  REQUIRE(*outcome.initiator);
  REQUIRE(*outcome.acceptor);
  CHECK(acceptor.peer_identity() == "/O=Grid/OU=Test/CN=Test User");
  // The raw bytes either came in with the flag record (leftover) or are still on the socket.
  auto received = **outcome.acceptor;
  REQUIRE(received.size() <= raw.size());
  received += read_exactly(ends.acceptor, raw.size() - received.size());
  CHECK(received == raw);
}

TEST_CASE("DCAU PROT P through the driver leaves a TLS session that carries the data",
          "[transport][handshake]") {
  const auto client = data_context(security::TlsRole::Client, security::DataProtection::Private);
  const auto server = data_context(security::TlsRole::Server, security::DataProtection::Private);
  security::GsiOptions options;
  options.ssl_compatible = true;
  auto initiator = gsi(client, security::TlsEngine::Role::Client, options);
  auto acceptor = gsi(server, security::TlsEngine::Role::Server, options);
  Ends ends;
  auto outcome = run_both(ends, initiator, acceptor);
  REQUIRE(*outcome.initiator);
  REQUIRE(*outcome.acceptor);
  CHECK(acceptor.engine().encrypts());
  const std::string secret = "encrypted payload";
  REQUIRE(initiator.engine().write({secret.data(), secret.size()}));
  const auto wire = initiator.engine().take_output();
  asio::write(ends.initiator, asio::buffer(wire));
  REQUIRE(acceptor.engine().feed(**outcome.acceptor));
  REQUIRE(acceptor.engine().feed(read_exactly(ends.acceptor, wire.size())));
  std::string plain(secret.size(), '\0');
  auto got = acceptor.engine().read({plain.data(), plain.size()});
  REQUIRE(got);
  CHECK(plain.substr(0, *got) == secret);
}

TEST_CASE("The GSI control handshake with delegation runs through the driver",
          "[transport][handshake]") {
  auto client = security::make_gsi_control_context(
      test_pki().user_proxy(), test_pki().trust_store(), security::TlsRole::Client);
  auto server = security::make_gsi_control_context(test_pki().host(), test_pki().trust_store(),
                                                   security::TlsRole::Server);
  REQUIRE(client);
  REQUIRE(server);
  const auto proxy = test_pki().user_proxy();
  security::GsiOptions initiator_options;
  initiator_options.delegate_from = &proxy;
  security::GsiOptions acceptor_options;
  acceptor_options.accept_delegation = true;
  auto initiator = gsi(*client, security::TlsEngine::Role::Client, initiator_options);
  auto acceptor = gsi(*server, security::TlsEngine::Role::Server, acceptor_options);
  Ends ends;
  auto outcome = run_both(ends, initiator, acceptor);
  REQUIRE(*outcome.initiator);
  REQUIRE(*outcome.acceptor);
  CHECK(initiator.peer_identity() == "/O=Grid/OU=Test/CN=localhost");
  CHECK(acceptor.take_delegated_credential().has_value());
}

TEST_CASE("The FTPS TLS handshake runs through the driver and checks the host",
          "[transport][handshake]") {
  auto server_context = security::make_ftps_server_context(test_pki().host());
  auto client_context = security::make_ftps_client_context();
  REQUIRE(server_context);
  REQUIRE(client_context);
  REQUIRE(X509_STORE_add_cert(SSL_CTX_get_cert_store(client_context->get()),
                              test_pki().ca().cert.get()) == 1);
  for (const std::string host : {"localhost", "elsewhere.example"}) {
    INFO("expected host " << host);
    auto client_engine =
        security::TlsEngine::create(client_context->get(), security::TlsEngine::Role::Client);
    auto server_engine =
        security::TlsEngine::create(server_context->get(), security::TlsEngine::Role::Server);
    REQUIRE(client_engine);
    REQUIRE(server_engine);
    REQUIRE(client_engine->expect_host(host));
    security::TlsHandshake initiator(std::move(*client_engine));
    security::TlsHandshake acceptor(std::move(*server_engine));
    Ends ends;
    // A refused certificate ends the client, whose alert then ends the server.
    auto outcome = run_both(ends, initiator, acceptor);
    if (host == "localhost") {
      REQUIRE(*outcome.initiator);
      REQUIRE(*outcome.acceptor);
      CHECK(initiator.complete());
      CHECK(acceptor.complete());
    } else {
      CHECK(outcome.initiator->error() == security::TlsErrc::HandshakeFailed);
      CHECK_FALSE(*outcome.acceptor);
    }
  }
}

TEST_CASE("A peer that hangs up mid-handshake is PeerClosed, a data-connection failure",
          "[transport][handshake]") {
  const auto server = data_context(security::TlsRole::Server, security::DataProtection::Clear);
  const auto client = data_context(security::TlsRole::Client, security::DataProtection::Clear);
  auto acceptor = gsi(server, security::TlsEngine::Role::Server, {});
  auto hello_source = gsi(client, security::TlsEngine::Role::Client, {});
  auto hello = hello_source.step({});
  REQUIRE(hello);
  REQUIRE(hello->size() > 10);
  Ends ends;
  asio::write(ends.initiator, asio::buffer(hello->data(), 10));  // half a ClientHello
  ends.initiator.close();
  std::optional<Result<std::string>> out;
  asio::co_spawn(ends.io, drive(&ends.acceptor, &acceptor, false, {}, &out), asio::detached);
  ends.io.run();
  REQUIRE(out.has_value());
  REQUIRE_FALSE(*out);
  CHECK(out->error() == gridftp::transport::TransportErrc::PeerClosed);
  CHECK(out->error() == gridftp::Condition::DataConnection);
  CHECK(out->error() != gridftp::Condition::NotFound);
}

TEST_CASE("Bytes that are not TLS records end the handshake as a bad reply",
          "[transport][handshake]") {
  const auto server = data_context(security::TlsRole::Server, security::DataProtection::Clear);
  auto acceptor = gsi(server, security::TlsEngine::Role::Server, {});
  Ends ends;
  asio::write(ends.initiator, asio::buffer(std::string("220 not TLS at all\r\n")));
  std::optional<Result<std::string>> out;
  asio::co_spawn(ends.io, drive(&ends.acceptor, &acceptor, false, {}, &out), asio::detached);
  ends.io.run();
  REQUIRE(out.has_value());
  REQUIRE_FALSE(*out);
  CHECK(out->error() == gridftp::protocol::Errc::BadReply);
}
