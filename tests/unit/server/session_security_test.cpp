// Security commands over a memory stream with no GSI: AUTH, ADAT, PBSZ, PROT, DCAU (RFC 2228,
// RFC 4217, GFD.20). AUTH TLS itself is control_session_tls_test.cpp's.
#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"

namespace gridftp::server::testing {
namespace {

TEST_CASE("AUTH of a mechanism the server lacks answers 504", "[session][security]") {
  SessionHarness session;  // no FTPS context, no GSI
  REQUIRE(session.read_reply().code == 220);
  CHECK(command(session, "AUTH GSSAPI").text == "Unknown authentication type.");
  CHECK(command(session, "AUTH TLS").code == 504);
  CHECK(command(session, "AUTH KERBEROS_V4").code == 504);
  CHECK(command(session, "AUTH").code == 504);
  CHECK(command(session, "NOOP").code == 200);  // the session goes on in the clear
}

TEST_CASE("ADAT without a GSSAPI exchange is refused", "[session][security]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  const auto reply = command(session, "ADAT AAAA");
  CHECK(reply.code == 530);
  CHECK(reply.text == "Must perform GSSAPI authentication.");
}

TEST_CASE("PBSZ is echoed, PROT C is taken without PBSZ", "[session][security]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "PROT C").text == "Protection level set to C.");
  CHECK(command(session, "PBSZ 0").text == "PBSZ=0");
  CHECK(command(session, "PBSZ 16384").text == "PBSZ=16384");
}

TEST_CASE("PROT S and P need a security exchange, other levels are refused",
          "[session][security]") {
  SessionHarness session;
  log_in(session);
  const auto reply = command(session, "PROT P");
  CHECK(reply.code == 536);
  CHECK(reply.text == "Requested protection level not supported.");
  CHECK(command(session, "PROT S").code == 536);
  CHECK(command(session, "PROT E").text == "Protection level E not supported.");
  CHECK(command(session, "PROT").code == 536);
}

TEST_CASE("DCAU N is taken, A and S need GSI, other modes are malformed", "[session][security]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "DCAU N").text == "DCAU N.");
  const auto a = command(session, "DCAU A");
  CHECK(a.code == 504);
  CHECK(a.text == "DCAU A needs a GSI session.");
  CHECK(command(session, "DCAU S /CN=peer").code == 504);
  CHECK(command(session, "DCAU X").text == "Bad DCAU mode.");
  CHECK(command(session, "DCAU").code == 501);
}

TEST_CASE("DCAU takes only a one-letter mode", "[session][security]") {
  // GFD.20: the DCAU argument is N, A or "S <subject>"; a word that starts with one of those
  // letters is not a mode.
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "DCAU NONSENSE").code == 501);
  CHECK(command(session, "DCAU SX").code == 501);
  CHECK(command(session, "DCAU N now").code == 501);
  CHECK(command(session, "DCAU n").code == 200);
}

}  // namespace
}  // namespace gridftp::server::testing
