// USER, PASS, ACCT, QUIT and the login gate (RFC 959 §4.1.1, §5.4) through a memory stream.
#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"

namespace gridftp::server::testing {
namespace {

TEST_CASE("USER without a name is a syntax error (501)", "[session][login]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  CHECK(command(session, "USER").code == 501);
  // The session still takes a proper login afterwards.
  CHECK(command(session, "USER anonymous").code == 331);
  CHECK(command(session, "PASS me@example.org").code == 230);
}

TEST_CASE("PASS before USER is a bad sequence (503)", "[session][login]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  CHECK(command(session, "PASS secret").code == 503);
}

TEST_CASE("USER and PASS once logged in", "[session][login]") {
  SessionHarness session;
  log_in(session);
  const auto user_again = command(session, "USER other");
  CHECK(user_again.code == 503);
  CHECK(has_text(user_again, "Already logged in"));
  CHECK(command(session, "PASS again").code == 202);
}

TEST_CASE("ACCT is superfluous (202) once logged in, refused (530) before", "[session][login]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  CHECK(command(session, "ACCT project").code == 530);
  REQUIRE(session.send("USER anonymous\r\nPASS me@example.org\r\n"));
  REQUIRE(session.read_replies(2)[1].code == 230);
  CHECK(command(session, "ACCT project").code == 202);
}

TEST_CASE("Commands that need a login get 530 before it", "[session][login]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  for (const char* line : {"CWD /",
                           "CDUP",
                           "PWD",
                           "MKD /incoming/x",
                           "RMD /incoming",
                           "DELE /x",
                           "RNFR /x",
                           "RNTO /y",
                           "SIZE /x",
                           "MDTM /x",
                           "MFMT 20200101000000 /x",
                           "MLST /",
                           "TYPE I",
                           "MODE E",
                           "STRU F",
                           "ALLO 10",
                           "REST 0",
                           "PASV",
                           "EPSV",
                           "PORT 127,0,0,1,4,1",
                           "EPRT |1|127.0.0.1|1025|",
                           "SPAS",
                           "SPOR 127,0,0,1,4,1",
                           "RETR /x",
                           "STOR /x",
                           "APPE /x",
                           "LIST",
                           "NLST",
                           "MLSD",
                           "ERET P 0 1 /x",
                           "ESTO A 0 /x",
                           "STAT",
                           "SITE HELP",
                           "CKSM MD5 0 -1 /x",
                           "SBUF 1024",
                           "DCAU N",
                           "TREV PERF 5",
                           "BRET 0 /",
                           "BRST 0 x",
                           "BSTO /incoming/b",
                           "ABOR"}) {
    INFO(line);
    const auto reply = command(session, line);
    CHECK(reply.code == 530);
    CHECK(has_text(reply, "login"));
  }
  CHECK_FALSE(std::filesystem::exists(session.root() / "incoming" / "x"));
}

TEST_CASE("The discovery commands answer before a login", "[session][login]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  CHECK(command(session, "NOOP").code == 200);
  const auto syst = command(session, "SYST");
  CHECK(syst.code == 215);
  CHECK(syst.text == "UNIX Type: L8");
  CHECK(command(session, "FEAT").code == 211);
  CHECK(command(session, "HELP").code == 214);
  CHECK(command(session, "LANG EN").code == 200);
  CHECK(command(session, "OPTS UTF8 ON").code == 200);
}

TEST_CASE("QUIT before a login also ends the session", "[session][login]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  CHECK(command(session, "QUIT").code == 221);
  CHECK(session.wait_for_end());
  CHECK(session.registry().active_sessions() == 0);
}

TEST_CASE("A verb that is disabled in the config answers 500", "[session][login]") {
  SessionHarnessOptions options;
  options.configure = [](ServerConfig& config) { config.server.disabled_commands = {"MKD"}; };
  SessionHarness session(std::move(options));
  log_in(session);
  CHECK(command(session, "MKD /incoming/d").code == 500);
  CHECK_FALSE(std::filesystem::exists(session.root() / "incoming" / "d"));
}

}  // namespace
}  // namespace gridftp::server::testing
