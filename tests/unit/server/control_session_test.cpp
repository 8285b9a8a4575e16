// ControlSession driven through a memory stream (session_harness.hpp): the control channel's
// reading, dispatch and replies with no socket.
#include "server/session/control_session.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"

namespace gridftp::server::testing {
namespace {

TEST_CASE("A session greets with 220 and logs in an anonymous user", "[session][control_session]") {
  SessionHarness session;
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("USER anonymous\r\n"));
  CHECK(session.read_reply().code == 331);
  REQUIRE(session.send("PASS me@example.org\r\n"));
  const auto logged_in = session.read_reply();
  CHECK(logged_in.code == 230);
  CHECK(logged_in.text.find("anonymous") != std::string::npos);
  REQUIRE(session.send("PWD\r\n"));
  CHECK(session.read_reply().code == 257);
}

TEST_CASE("A session answers pipelined commands from one write in order",
          "[session][control_session]") {
  SessionHarness session;
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("USER anonymous\r\nPASS me@example.org\r\nTYPE I\r\n"));
  const auto replies = session.read_replies(3);
  CHECK(replies[0].code == 331);
  CHECK(replies[1].code == 230);
  CHECK(replies[2].code == 200);
}

TEST_CASE("A session reassembles a command split across reads", "[session][control_session]") {
  SessionHarnessOptions options;
  options.session_end.max_read_bytes = 3;  // "USE", "R a", ...
  SessionHarness session(std::move(options));
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("USER anonymous\r\nNOOP\r\n"));
  CHECK(session.read_reply().code == 331);
  CHECK(session.read_reply().code == 200);
}

TEST_CASE("A session answers an unknown command with 500 and carries on",
          "[session][control_session]") {
  SessionHarness session;
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("FROB x\r\n"));
  CHECK(session.read_reply().code == 500);
  REQUIRE(session.send("NOOP\r\n"));
  CHECK(session.read_reply().code == 200);
}

TEST_CASE("A session refuses a wrong password with 530", "[session][control_session]") {
  SessionHarnessOptions options;
  options.configure = [](ServerConfig& config) { config.anonymous.enabled = false; };
  SessionHarness session(std::move(options));
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("USER nobody-here\r\nPASS wrong\r\n"));
  CHECK(session.read_reply().code == 331);
  CHECK(session.read_reply().code == 530);
}

TEST_CASE("QUIT gets 221 and the session ends, closing the stream", "[session][control_session]") {
  SessionHarness session;
  CHECK(session.read_reply().code == 220);
  REQUIRE(session.send("QUIT\r\n"));
  CHECK(session.read_reply().code == 221);
  CHECK(session.read_reply().code == 0);  // the session's end finished
  CHECK(session.wait_for_end());
  CHECK(session.registry().active_sessions() == 0);
}

TEST_CASE("A control stream that breaks mid-command ends the session cleanly",
          "[session][control_session]") {
  SessionHarnessOptions options;
  options.session_end.fail_after_bytes = 40;  // the greeting goes, reading breaks in the PASS
  SessionHarness session(std::move(options));
  REQUIRE(session.send("USER anonymous\r\nPASS me@example.org\r\nNOOP\r\n"));
  CHECK(session.wait_for_end());
  CHECK(session.registry().active_sessions() == 0);
}

}  // namespace
}  // namespace gridftp::server::testing
