// GsiControlChannel between ControlConnection and a scripted server that wraps each reply line
// with a real GSI acceptor (in memory, no sockets): ENC commands, 632/632- replies unwrapped and
// parsed as one reply, clear 530s passed through, forged tokens refused (docs/WIRE.md §5.3).
#include "client/auth/gsi_control_channel.hpp"

#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include "client/session/control_connection.hpp"
#include "protocol/core/base64.hpp"
#include "security/gsi_handshake.hpp"
#include "security/tls_contexts.hpp"
#include "tests/unit/security/test_pki.hpp"

using gridftp::client::Clock;
using gridftp::client::ControlChannel;
using gridftp::client::ControlConnection;
using gridftp::client::GsiControlChannel;
using gridftp::protocol::decode_base64;
using gridftp::protocol::encode_base64;
using gridftp::security::GsiHandshake;
using gridftp::security::GsiOptions;
using gridftp::security::TlsRole;
using gridftp::security::testing::test_pki;

namespace {

// The socket below the GSI channel: written lines are recorded, reads come from `incoming`.
class FakeWire final : public ControlChannel {
 public:
  gridftp::Result<void> write_line(std::string_view line) override {
    written.emplace_back(line);
    return {};
  }
  gridftp::Result<std::size_t> read_some(std::span<char> buffer, Clock::duration) override {
    if (incoming.empty()) {
      return std::size_t{0};
    }
    const auto n = std::min(buffer.size(), incoming.size());
    std::memcpy(buffer.data(), incoming.data(), n);
    incoming.erase(0, n);
    return n;
  }
  std::string peer_address() const override { return "127.0.0.1"; }
  bool is_ipv6() const override { return false; }
  void close() override {}

  std::vector<std::string> written;
  std::string incoming;
};

// A completed GSI exchange: the client's engine goes to the channel, the server's stays here.
struct Fixture {
  Fixture() {
    auto server_context = gridftp::security::make_gsi_control_context(
        test_pki().host(), test_pki().trust_store(), TlsRole::Server);
    auto client_context = gridftp::security::make_gsi_control_context(
        test_pki().user_proxy(), test_pki().trust_store(), TlsRole::Client);
    REQUIRE(server_context);
    REQUIRE(client_context);
    auto client = GsiHandshake::create(client_context->get(), GsiHandshake::Role::Client, {});
    auto server = GsiHandshake::create(server_context->get(), GsiHandshake::Role::Server, {});
    REQUIRE(client);
    REQUIRE(server);
    auto token = client->step({});
    for (int round = 0; round < 8 && !(client->complete() && server->complete()); ++round) {
      REQUIRE(token);
      auto reply = server->step(*token);
      REQUIRE(reply);
      if (server->complete() && reply->empty()) {
        break;
      }
      token = client->step(*reply);
    }
    REQUIRE(client->complete());
    REQUIRE(server->complete());
    server_engine.emplace(std::move(server->engine()));
    auto wire = std::make_unique<FakeWire>();
    fake = wire.get();
    auto channel = std::make_unique<GsiControlChannel>(std::move(wire));
    channel->start_protection(std::move(client->engine()));
    control = std::make_unique<ControlConnection>(
        std::move(channel), "test",
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
  }

  // What the server sends for one plaintext reply line ("211-...\r\n").
  std::string wrapped(const std::string& code_and_dash, const std::string& line) {
    auto token = gridftp::security::wrap_record(*server_engine, line);
    REQUIRE(token);
    return code_and_dash + encode_base64(*token) + "\r\n";
  }

  // The plaintext of a command the channel sent as "ENC <b64>".
  std::string unwrapped_command(const std::string& sent) {
    REQUIRE(sent.rfind("ENC ", 0) == 0);
    auto token = decode_base64(sent.substr(4));
    REQUIRE(token);
    auto plain = gridftp::security::unwrap_records(
        *server_engine,
        std::string_view(reinterpret_cast<const char*>(token->data()), token->size()));
    REQUIRE(plain);
    return *plain;
  }

  std::optional<gridftp::security::TlsEngine> server_engine;
  FakeWire* fake = nullptr;
  std::unique_ptr<ControlConnection> control;
};

}  // namespace

TEST_CASE("GSI control channel sends ENC lines and parses a wrapped multi-line reply",
          "[gsi][control]") {
  Fixture f;
  // One statement each: records must be wrapped in order (TLS sequence numbers).
  f.fake->incoming = f.wrapped("632-", "211-Extensions supported\r\n");
  f.fake->incoming += f.wrapped("632-", " DCAU\r\n");
  f.fake->incoming += f.wrapped("632-", " PARALLEL\r\n");
  f.fake->incoming += f.wrapped("632 ", "211 End.\r\n");
  auto reply = f.control->command("FEAT");
  REQUIRE(reply);
  CHECK(reply->code == 211);
  CHECK(reply->lines ==
        std::vector<std::string>{"211-Extensions supported", " DCAU", " PARALLEL", "211 End."});
  REQUIRE(f.fake->written.size() == 1);
  CHECK(f.unwrapped_command(f.fake->written[0]) == "FEAT\r\n");
}

TEST_CASE("GSI control channel sends an empty PASS as the 7 bytes 'PASS \\r\\n'",
          "[gsi][control]") {
  Fixture f;
  f.fake->incoming = f.wrapped("632 ", "230 User gftest logged in.\r\n");
  auto reply = f.control->command("PASS ");
  REQUIRE(reply);
  CHECK(reply->code == 230);
  CHECK(f.unwrapped_command(f.fake->written.at(0)) == "PASS \r\n");
}

TEST_CASE("GSI control channel passes an unprotected 530 through", "[gsi][control]") {
  Fixture f;
  f.fake->incoming = "530-Login incorrect. : Could not map /O=Grid/CN=X\r\n530-\r\n530 End.\r\n";
  auto reply = f.control->command("PASS ");
  REQUIRE(reply);
  CHECK(reply->code == 530);
  CHECK(reply->lines.size() == 3);
}

TEST_CASE("GSI control channel refuses a forged reply token", "[gsi][control]") {
  Fixture f;
  auto line = f.wrapped("632 ", "226 Transfer Complete.\r\n");
  auto token = decode_base64(line.substr(4, line.size() - 6));
  REQUIRE(token);
  (*token)[token->size() - 2] ^= 0x01;
  f.fake->incoming = "632 " + encode_base64(*token) + "\r\n";
  CHECK_FALSE(f.control->read_reply(std::chrono::seconds(1)));
}
