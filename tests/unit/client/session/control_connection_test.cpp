#include "client/session/control_connection.hpp"

#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "protocol/core/errors.hpp"
#include "tests/unit/client/session/scripted_channel.hpp"

using gridftp::client::Clock;
using gridftp::client::ControlChannel;
using gridftp::client::ControlConnection;
using gridftp::client::rejected_reply_error;

using gridftp::client::testing::ScriptedChannel;

namespace {

struct Harness {
  std::vector<std::string> written;
  std::ostringstream log_text;
  std::unique_ptr<ControlConnection> connection;

  explicit Harness(std::deque<std::string> chunks) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(log_text);
    auto log = std::make_shared<spdlog::logger>("test", sink);
    log->set_level(spdlog::level::debug);
    connection = std::make_unique<ControlConnection>(
        std::make_unique<ScriptedChannel>(std::move(chunks), written), "srv", log);
  }
};

}  // namespace

TEST_CASE("ControlConnection reads replies split across reads", "[client][control]") {
  Harness harness(
      {"220 rea", "dy\r\n331 Pass", "word required\r\n230-a\r\n 230 x\r\n230 End.\r\n"});
  auto greeting = harness.connection->read_reply(std::chrono::seconds(1));
  REQUIRE(greeting);
  CHECK(greeting->code == 220);
  auto user = harness.connection->command("USER anonymous");
  REQUIRE(user);
  CHECK(user->code == 331);
  auto pass = harness.connection->command_expecting("PASS secret", 2);
  REQUIRE(pass);
  CHECK(pass->lines.size() == 3);
  CHECK(harness.written == std::vector<std::string>{"USER anonymous", "PASS secret"});
}

TEST_CASE("ControlConnection never logs a password", "[client][control]") {
  Harness harness({"230 ok\r\n"});
  REQUIRE(harness.connection->command("PASS secret"));
  CHECK(harness.log_text.str().find("secret") == std::string::npos);
  CHECK(harness.log_text.str().find("PASS ****") != std::string::npos);
}

TEST_CASE("ControlConnection keeps the refusing reply", "[client][control]") {
  Harness harness({"550-No such file\r\n550 End.\r\n"});
  auto reply = harness.connection->command_expecting("RETR /x", 2);
  CHECK(reply.error() == rejected_reply_error());
  CHECK(harness.connection->last_failure() == "RETR /x:\n    550-No such file\n    550 End.");
}

TEST_CASE("ControlConnection reports a server that closes mid-reply", "[client][control]") {
  Harness harness({"211-partial\r\n"});
  auto reply = harness.connection->command("FEAT");
  CHECK(reply.error() == std::errc::connection_reset);
  CHECK(harness.connection->last_failure().rfind("FEAT: no reply", 0) == 0);
}

TEST_CASE("ControlConnection rejects garbage from the server", "[client][control]") {
  Harness harness({"HTTP/1.1 400 Bad Request\r\n"});
  auto reply = harness.connection->read_reply(std::chrono::seconds(1));
  CHECK(reply.error() == gridftp::protocol::Errc::BadReply);
}
