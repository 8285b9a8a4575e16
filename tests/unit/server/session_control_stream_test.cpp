// The control stream itself under a memory stream: pipelined commands, reads split into single
// bytes, a stream that breaks mid-session, bad bytes and over-long lines (RFC 959 §4.1, §5.3).
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"

namespace gridftp::server::testing {
namespace {

TEST_CASE("Many pipelined commands in one write are answered in order",
          "[session][control_stream]") {
  SessionHarness session;
  std::filesystem::create_directories(session.root() / "incoming");
  REQUIRE(session.read_reply().code == 220);
  REQUIRE(session.send(
      "USER anonymous\r\nPASS x\r\nTYPE I\r\nMODE E\r\nMKD /incoming/p\r\nCWD /incoming/p\r\n"
      "PWD\r\nRNTO /x\r\nBOGUS\r\nNOOP\r\n"));
  const auto replies = session.read_replies(10);
  CHECK(replies[0].code == 331);
  CHECK(replies[1].code == 230);
  CHECK(replies[2].code == 200);
  CHECK(replies[3].code == 200);
  CHECK(replies[4].code == 257);
  CHECK(replies[5].code == 250);
  CHECK(replies[6].text == "\"/incoming/p\" is current directory.");
  CHECK(replies[7].code == 503);
  CHECK(replies[8].code == 500);
  CHECK(replies[9].code == 200);
  CHECK(std::filesystem::is_directory(session.root() / "incoming" / "p"));
}

TEST_CASE("A session read one byte at a time works as one read in whole",
          "[session][control_stream]") {
  SessionHarnessOptions options;
  options.session_end.max_read_bytes = 1;
  SessionHarness session(std::move(options));
  log_in(session);
  REQUIRE(session.send("MKD /incoming/bytewise\r\nSIZE /incoming\r\nQUIT\r\n"));
  const auto replies = session.read_replies(3);
  CHECK(replies[0].code == 257);
  CHECK(replies[1].code == 550);
  CHECK(replies[2].code == 221);
  CHECK(std::filesystem::is_directory(session.root() / "incoming" / "bytewise"));
  CHECK(session.wait_for_end());
}

TEST_CASE("A stream that breaks mid-session ends it, what came before was answered",
          "[session][control_stream]") {
  const std::string login = "USER anonymous\r\nPASS me@example.org\r\n";
  // Long commands with short replies, so that the session's reads reach the break before its
  // writes do (the limit counts each way on its own).
  const std::string cwd = "CWD /incoming" + std::string(300, '/') + "\r\n";
  const std::string before = login + cwd + cwd + cwd;
  SessionHarnessOptions options;
  options.session_end.fail_after_bytes = before.size() + 5;  // inside the MKD
  SessionHarness session(std::move(options));
  std::filesystem::create_directories(session.root() / "incoming");
  REQUIRE(session.read_reply().code == 220);
  REQUIRE(session.send(before + "MKD /incoming/never\r\nNOOP\r\n"));
  const auto replies = session.read_replies(5);
  CHECK(replies[0].code == 331);
  CHECK(replies[1].code == 230);
  CHECK(replies[2].code == 250);
  CHECK(replies[3].code == 250);
  CHECK(replies[4].code == 250);
  CHECK(session.read_reply().code == 0);  // nothing for the MKD or the NOOP
  CHECK(session.wait_for_end());
  CHECK(session.registry().active_sessions() == 0);
  CHECK_FALSE(std::filesystem::exists(session.root() / "incoming" / "never"));
}

TEST_CASE("A command line over the limit gets 500 and the next one is answered",
          "[session][control_stream]") {
  SessionHarnessOptions options;
  options.configure = [](ServerConfig& config) { config.limits.max_command_line_bytes = 512; };
  SessionHarness session(std::move(options));
  log_in(session);
  const auto too_long = command(session, "MKD /incoming/" + std::string(1000, 'a'));
  CHECK(too_long.code == 500);
  CHECK(too_long.text == "Command line too long.");
  CHECK(std::filesystem::is_empty(session.root() / "incoming"));
  // The limit counts the whole line up to and with its LF: 512 bytes are a command, 513 not.
  CHECK(command(session, "NOOP " + std::string(505, 'x')).code == 200);
  CHECK(command(session, "NOOP " + std::string(506, 'x')).code == 500);
  CHECK(command(session, "NOOP").code == 200);
}

TEST_CASE("An over-long line split across many reads is discarded whole",
          "[session][control_stream]") {
  SessionHarnessOptions options;
  options.session_end.max_read_bytes = 7;
  SessionHarness session(std::move(options));
  log_in(session);
  REQUIRE(session.send("NOOP " + std::string(10000, 'x') + "\r\nPWD\r\n"));
  const auto replies = session.read_replies(2);
  CHECK(replies[0].text == "Command line too long.");
  CHECK(replies[1].code == 257);
}

TEST_CASE("A bare LF ends a command line", "[session][control_stream]") {
  SessionHarness session;
  log_in(session);
  REQUIRE(session.send("NOOP\nPWD\n"));
  const auto replies = session.read_replies(2);
  CHECK(replies[0].code == 200);
  CHECK(replies[1].code == 257);
}

TEST_CASE("A NUL inside a path is refused and creates nothing", "[session][control_stream]") {
  SessionHarness session;
  log_in(session);
  using namespace std::string_literals;
  const auto reply = command(session, "MKD /incoming/a\0b"s);
  CHECK(reply.code == 501);
  CHECK(std::filesystem::is_empty(session.root() / "incoming"));
  CHECK(command(session, "NOOP").code == 200);
}

TEST_CASE("A NUL inside a verb is an unknown command", "[session][control_stream]") {
  SessionHarness session;
  log_in(session);
  using namespace std::string_literals;
  CHECK(command(session, "NO\0OP"s).code == 500);
  CHECK(command(session, "NOOP").code == 200);
}

TEST_CASE("Bytes that are not UTF-8 pass through a path unchanged", "[session][control_stream]") {
  SessionHarness session;
  log_in(session);
  // RFC 2640 §2.2: a server that cannot read a name as UTF-8 handles it as raw bytes.
  CHECK(command(session, "MKD /incoming/\xc3\x28\x80").code == 257);
  CHECK(std::filesystem::is_directory(session.root() / "incoming" / "\xc3\x28\x80"));
  CHECK(command(session, "\xc3\x28").code == 500);
  CHECK(command(session, "NOOP").code == 200);
}

}  // namespace
}  // namespace gridftp::server::testing
