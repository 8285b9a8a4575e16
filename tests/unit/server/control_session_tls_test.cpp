// AUTH TLS on a session driven through a memory stream (session_harness.hpp): after the 234 the
// test's end runs a client TlsEngine over the same stream, and commands and replies travel as
// TLS records (RFC 4217 §4), with no socket.
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "security/handshake.hpp"
#include "security/tls_contexts.hpp"
#include "tests/unit/security/test_pki.hpp"
#include "tests/unit/server/session_harness.hpp"
#include "transport/handshake_driver.hpp"
#include "transport/tls_stream.hpp"

namespace gridftp::server::testing {
namespace {

using security::testing::test_pki;

// Passes bytes through and keeps a copy of what was read: what the wire carried.
class RecordingStream final : public transport::ByteStream {
 public:
  RecordingStream(std::unique_ptr<transport::ByteStream> inner, std::shared_ptr<std::string> seen)
      : inner_(std::move(inner)), seen_(std::move(seen)) {}
  transport::asio::any_io_executor get_executor() override { return inner_->get_executor(); }
  transport::awaitable<std::size_t> read_some(std::span<char> out, std::error_code& ec) override {
    const auto got = co_await inner_->read_some(out, ec);
    seen_->append(out.data(), got);
    co_return got;
  }
  transport::awaitable<void> write_all(std::span<const char> bytes, std::error_code& ec,
                                       bool more) override {
    co_await inner_->write_all(bytes, ec, more);
  }
  transport::awaitable<void> finish(std::error_code& ec) override { co_await inner_->finish(ec); }
  void close() override { inner_->close(); }

 private:
  std::unique_ptr<transport::ByteStream> inner_;
  std::shared_ptr<std::string> seen_;
};

SessionHarnessOptions ftps_options() {
  SessionHarnessOptions options;
  auto context = security::make_ftps_server_context(test_pki().host());
  REQUIRE(context);
  options.ftps = std::move(*context);
  options.configure = [](ServerConfig& config) { config.tls.enabled = true; };
  return options;
}

// The client's half of AUTH TLS after the 234: the handshake over the harness's end, which then
// becomes a TLS stream. Returns false if the handshake failed.
bool start_client_tls(SessionHarness& session, std::shared_ptr<std::string> seen) {
  auto context = security::make_ftps_client_context();
  REQUIRE(context);
  REQUIRE(X509_STORE_add_cert(SSL_CTX_get_cert_store(context->get()), test_pki().ca().cert.get()) ==
          1);
  auto engine = security::TlsEngine::create(context->get(), security::TlsEngine::Role::Client);
  REQUIRE(engine);
  REQUIRE(engine->expect_host("localhost"));
  auto wire = std::make_unique<RecordingStream>(session.take_client(), std::move(seen));
  auto handshake = std::make_shared<security::TlsHandshake>(std::move(*engine));
  std::optional<Result<std::string>> outcome;
  transport::asio::co_spawn(
      session.io(),
      [&outcome, handshake, stream = wire.get()]() -> transport::awaitable<void> {
        outcome = co_await transport::drive_handshake(*stream, *handshake, /*initiator=*/true);
      },
      transport::asio::detached);
  REQUIRE(session.run_until([&] { return outcome.has_value(); }));
  if (!*outcome) return false;
  session.replace_client(std::make_unique<transport::TlsStream>(
      std::move(wire), std::move(handshake->engine()), std::move(**outcome)));
  return true;
}

TEST_CASE("After AUTH TLS a session's commands and replies travel encrypted",
          "[session][control_session][ftps]") {
  SessionHarness session(ftps_options());
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("AUTH TLS\r\n"));
  CHECK(session.read_reply().code == 234);
  auto seen = std::make_shared<std::string>();
  REQUIRE(start_client_tls(session, seen));
  seen->clear();  // the handshake
  REQUIRE(session.send("USER anonymous\r\nPASS me@example.org\r\nPBSZ 0\r\nPROT P\r\n"));
  const auto replies = session.read_replies(4);
  CHECK(replies[0].code == 331);
  CHECK(replies[1].code == 230);
  CHECK(replies[2].code == 200);
  CHECK(replies[3].code == 200);
  // What came over the wire was TLS application data records, not the reply text.
  REQUIRE_FALSE(seen->empty());
  CHECK(static_cast<unsigned char>(seen->front()) == 0x17);
  CHECK(seen->find("logged in") == std::string::npos);
  REQUIRE(session.send("QUIT\r\n"));
  CHECK(session.read_reply().code == 221);
  CHECK(session.read_reply().code == 0);  // close_notify: the end of the stream
  CHECK(session.wait_for_end());
}

TEST_CASE("Cleartext after AUTH TLS ends the session", "[session][control_session][ftps]") {
  SessionHarness session(ftps_options());
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("AUTH TLS\r\n"));
  CHECK(session.read_reply().code == 234);
  (void)session.send("USER anonymous\r\n");  // no ClientHello: not a TLS record
  CHECK(session.wait_for_end());
  CHECK(session.registry().active_sessions() == 0);
}

}  // namespace
}  // namespace gridftp::server::testing
