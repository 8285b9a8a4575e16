#include "client/session/session.hpp"

#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "tests/unit/client/session/scripted_channel.hpp"

using gridftp::client::ControlConnection;
using gridftp::client::Session;
using gridftp::client::SessionOptions;
using gridftp::client::testing::ScriptedChannel;

namespace {

// A logged-in session whose server answers with `replies` (after the greeting, the anonymous
// login and FEAT listing `features`), writing its commands into `written`.
struct Harness {
  gridftp::transport::asio::io_context io;
  std::vector<std::string> written;
  std::ostringstream log_text;
  std::unique_ptr<Session> session;

  Harness(const std::string& features, std::deque<std::string> replies,
          SessionOptions options = {}) {
    replies.push_front("211-Extensions supported\r\n" + features + "211 End.\r\n");
    replies.push_front("230 Logged in.\r\n");
    replies.push_front("220 ready\r\n");
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(log_text);
    auto log = std::make_shared<spdlog::logger>("test", sink);
    log->set_level(spdlog::level::debug);
    auto control = std::make_unique<ControlConnection>(
        std::make_unique<ScriptedChannel>(std::move(replies), written), "dst ftp://h", log);
    session = std::make_unique<Session>(io, std::move(control), std::move(options));
    auto url = gridftp::client::parse_url("ftp://h/file");
    REQUIRE(url);
    REQUIRE(session->log_in(*url));
    written.clear();  // the login's USER and FEAT
  }
};

}  // namespace

TEST_CASE("Session falls back to stream mode when the server has no MODE E", "[client][session]") {
  Harness harness(" SIZE\r\n", {"504 Bad MODE command.\r\n"});
  auto mode = harness.session->use_extended_block_mode(true);
  REQUIRE(mode);
  CHECK_FALSE(*mode);
  CHECK(harness.written == std::vector<std::string>{"MODE E"});
  CHECK(harness.log_text.str().find("dst ftp://h: no MODE E (Bad MODE command.)") !=
        std::string::npos);
  // Not asked again: the next file of the session goes straight to stream mode.
  mode = harness.session->use_extended_block_mode(true);
  REQUIRE(mode);
  CHECK_FALSE(*mode);
  CHECK(harness.written.size() == 1);
}

TEST_CASE("Session takes MODE E where the server has it", "[client][session]") {
  Harness harness(" PARALLEL\r\n", {"200 Mode set to E.\r\n", "200 Mode set to S.\r\n"});
  auto mode = harness.session->use_extended_block_mode(true);
  REQUIRE(mode);
  CHECK(*mode);
  mode = harness.session->use_extended_block_mode(false);
  REQUIRE(mode);
  CHECK_FALSE(*mode);
  CHECK(harness.written == std::vector<std::string>{"MODE E", "MODE S"});
}

TEST_CASE("Session fails on a MODE E refusal that is not about MODE E", "[client][session]") {
  // 503: out of sequence, not "no such mode"; stream mode would hide the real problem.
  Harness harness("", {"503 Bad sequence of commands.\r\n"});
  CHECK_FALSE(harness.session->use_extended_block_mode(true));
}

TEST_CASE("Session sends -tcp-bs as SBUF where FEAT lists it, else SITE RETRBUFSIZE",
          "[client][session]") {
  SessionOptions options;
  options.tcp_buffer_bytes = 65536;
  Harness with_sbuf(" SBUF\r\n", {"200 SBUF Command Successful.\r\n"}, options);
  REQUIRE(with_sbuf.session->use_tcp_buffer());
  REQUIRE(with_sbuf.session->use_tcp_buffer());  // once per session
  CHECK(with_sbuf.written == std::vector<std::string>{"SBUF 65536"});

  // A refusal is no failure: the buffer size is advice (vsftpd knows neither command).
  Harness without(" SIZE\r\n", {"500 Unknown SITE command.\r\n"}, options);
  REQUIRE(without.session->use_tcp_buffer());
  REQUIRE(without.session->use_tcp_buffer());
  CHECK(without.written == std::vector<std::string>{"SITE RETRBUFSIZE 65536"});
}

TEST_CASE("Session sends no buffer size without -tcp-bs", "[client][session]") {
  Harness harness(" SBUF\r\n", {});
  REQUIRE(harness.session->use_tcp_buffer());
  CHECK(harness.written.empty());
}

TEST_CASE("Session asks for restart markers once and takes a refusal", "[client][session]") {
  Harness harness("", {"500 Unknown command.\r\n"});
  REQUIRE(harness.session->ask_restart_markers(1));
  REQUIRE(harness.session->ask_restart_markers(1));
  CHECK(harness.written == std::vector<std::string>{"TREV RESTART 1"});
}
