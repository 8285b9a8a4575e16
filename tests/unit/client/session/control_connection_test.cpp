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

TEST_CASE("ControlConnection sends ahead and reads the replies in order when claimed",
          "[client][control]") {
  Harness harness({"220 ready\r\n334 go on\r\n"});
  REQUIRE(harness.connection->send_ahead("AUTH GSSAPI"));
  auto greeting = harness.connection->read_reply(std::chrono::seconds(1));
  REQUIRE(greeting);
  CHECK(greeting->code == 220);
  auto auth = harness.connection->command("AUTH GSSAPI");
  REQUIRE(auth);
  CHECK(auth->code == 334);
  CHECK(harness.written == std::vector<std::string>{"AUTH GSSAPI"});  // sent once, early
}

TEST_CASE("ControlConnection drops the replies of sent-ahead commands nobody claims",
          "[client][control]") {
  Harness harness({"230 logged in\r\n503 already\r\n211 no features\r\n"});
  for (const char* command : {"USER u", "PASS p", "FEAT"}) {
    REQUIRE(harness.connection->send_ahead(command));
  }
  auto user = harness.connection->command("USER u");
  REQUIRE(user);
  CHECK(user->code == 230);
  auto feat = harness.connection->command("FEAT");  // PASS was not needed after all
  REQUIRE(feat);
  CHECK(feat->code == 211);
  CHECK(harness.written == std::vector<std::string>{"USER u", "PASS p", "FEAT"});
}

TEST_CASE("ControlConnection checks unanswered settings at the next read", "[client][control]") {
  Harness harness({"200 type\r\n200 stack\r\n227 Entering Passive Mode (127,0,0,1,4,1)\r\n"});
  REQUIRE(harness.connection->send_unanswered("TYPE I", 2));
  REQUIRE(harness.connection->send_unanswered("SITE SETNETSTACK udpx", 2));
  CHECK(harness.written.size() == 2);  // nothing read yet
  auto passive = harness.connection->command_expecting("PASV", 2);
  REQUIRE(passive);
  CHECK(passive->code == 227);
  CHECK(harness.written == std::vector<std::string>{"TYPE I", "SITE SETNETSTACK udpx", "PASV"});
}

TEST_CASE("ControlConnection names the refused unanswered setting", "[client][control]") {
  Harness harness({"200 type\r\n504 no such stack\r\n227 x\r\n150 go\r\n200 fine\r\n"});
  REQUIRE(harness.connection->send_unanswered("TYPE I", 2));
  REQUIRE(harness.connection->send_unanswered("SITE SETNETSTACK udx", 2));
  REQUIRE(harness.connection->send_ahead("PASV"));
  REQUIRE(harness.connection->send_ahead("RETR /f"));
  auto passive = harness.connection->command_expecting("PASV", 2);
  CHECK(passive.error() == rejected_reply_error());
  CHECK(harness.connection->last_failure() == "SITE SETNETSTACK udx:\n    504 no such stack");
  // The connection is out of step with its caller now: every later read fails the same way.
  CHECK(harness.connection->read_reply(std::chrono::seconds(1)).error() == rejected_reply_error());
}

TEST_CASE("ControlConnection lets a check judge an unanswered reply", "[client][control]") {
  Harness harness({"331 need password\r\n530 no\r\n"});
  int seen = 0;
  REQUIRE(harness.connection->send_unanswered(
      "USER u", [&](const gridftp::client::ParsedReply& reply) -> gridftp::Result<void> {
        seen = reply.code;
        return {};
      }));
  REQUIRE(harness.connection->send_unanswered(
      "PASS p", [&](const gridftp::client::ParsedReply& reply) -> gridftp::Result<void> {
        harness.connection->note_failure("PASS", reply);
        return gridftp::make_error(make_error_code(gridftp::protocol::Errc::NotLoggedIn));
      }));
  CHECK(harness.connection->read_unanswered().error() == gridftp::protocol::Errc::NotLoggedIn);
  CHECK(seen == 331);
  CHECK(harness.connection->last_failure() == "PASS:\n    530 no");
}

TEST_CASE("ControlConnection keeps a sent-ahead command behind checked ones", "[client][control]") {
  Harness harness({"227 x\r\n350 rest\r\n150 go\r\n226 done\r\n"});
  REQUIRE(harness.connection->send_ahead("PASV"));
  REQUIRE(harness.connection->send_unanswered("REST 10", 3));
  REQUIRE(harness.connection->send_ahead("RETR /f"));
  auto passive = harness.connection->command("PASV");
  REQUIRE(passive);
  CHECK(passive->code == 227);
  REQUIRE(harness.connection->send("RETR /f"));
  auto begun = harness.connection->read_reply(std::chrono::seconds(1));
  REQUIRE(begun);
  CHECK(begun->code == 150);
  auto ended = harness.connection->read_reply(std::chrono::seconds(1));
  REQUIRE(ended);
  CHECK(ended->code == 226);
  CHECK(harness.written == std::vector<std::string>{"PASV", "REST 10", "RETR /f"});
}

TEST_CASE("ControlConnection reads a claimed command's reply before later unanswered ones",
          "[client][control]") {
  Harness harness({"235 done\r\n331 password\r\n230 in\r\n"});
  REQUIRE(harness.connection->send_ahead("ADAT last"));
  REQUIRE(harness.connection->send_unanswered("USER u", 3));
  REQUIRE(harness.connection->send_unanswered("PASS p", 2));
  auto adat = harness.connection->command("ADAT last");
  REQUIRE(adat);
  CHECK(adat->code == 235);
  REQUIRE(harness.connection->read_unanswered());
  CHECK(harness.written == std::vector<std::string>{"ADAT last", "USER u", "PASS p"});
}
