// The settings a transfer uses, set over a memory stream: TYPE, MODE, STRU, ALLO, REST, OPTS,
// LANG, SBUF, TREV (RFC 959 §4.1.2, RFC 3659 §5, RFC 2389, GFD.20).
#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"

namespace gridftp::server::testing {
namespace {

TEST_CASE("TYPE takes I, L 8 and A and refuses the rest with 504", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "TYPE A").text == "Type set to A.");
  CHECK(all_lines(command(session, "STAT")).find("TYPE: ASCII") != std::string::npos);
  CHECK(command(session, "TYPE I").text == "Type set to I.");
  CHECK(command(session, "TYPE L 8").code == 200);
  const auto ebcdic = command(session, "TYPE E");
  CHECK(ebcdic.code == 504);
  CHECK(ebcdic.text == "Type E not supported.");
  CHECK(command(session, "TYPE").code == 504);
}

TEST_CASE("MODE takes S and E and refuses the rest with 504", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "MODE E").text == "Mode set to E.");
  CHECK(command(session, "MODE S").text == "Mode set to S.");
  const auto block = command(session, "MODE B");
  CHECK(block.code == 504);
  CHECK(block.text == "'MODE B' unrecognized transfer mode.");
  CHECK(command(session, "MODE").code == 504);
}

TEST_CASE("STRU takes F only", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "STRU F").code == 200);
  CHECK(command(session, "STRU R").code == 504);
  CHECK(command(session, "STRU P").code == 504);
}

TEST_CASE("ALLO is accepted with a size and ignored without one", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "ALLO 1048576").code == 200);
  // RFC 959: ALLO may be ignored; a malformed size is not an error, only not kept.
  CHECK(command(session, "ALLO lots").code == 200);
}

TEST_CASE("REST takes an offset or MODE E ranges", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  const auto offset = command(session, "REST 100");
  CHECK(offset.code == 350);
  CHECK(has_text(offset, "Restarting at 100"));
  CHECK(command(session, "REST 0-4980736,5242880-6000000").code == 350);
}

TEST_CASE("REST refuses what is not an offset or a range list", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "REST").text == "Bad REST parameter.");
  CHECK(command(session, "REST abc").code == 501);
  CHECK(command(session, "REST 10x").code == 501);
  CHECK(command(session, "REST -5").code == 501);
  CHECK(command(session, "REST 5-x").code == 501);
  CHECK(command(session, "REST 99999999999999999999999").code == 501);
}

TEST_CASE("OPTS RETR sets parallelism, OPTS UTF8 and OPTS MLST answer 200",
          "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  const auto retr = command(session, "OPTS RETR Parallelism=4,4,4;");
  CHECK(retr.code == 200);
  CHECK(retr.text == "OPTS Command Successful.");
  CHECK(command(session, "OPTS UTF8 ON").text == "UTF8 mode enabled.");
  const auto mlst = command(session, "OPTS MLST Type;Size;");
  CHECK(mlst.code == 200);
  CHECK(has_text(mlst, "MLST OPTS"));
}

TEST_CASE("OPTS refuses what it does not understand with 501", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "OPTS RETR Parallelism=x;").text == "Bad OPTS RETR parameters.");
  CHECK(command(session, "OPTS FROB on").text == "OPTS not understood.");
  CHECK(command(session, "OPTS").code == 501);
}

TEST_CASE("LANG takes EN only", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "LANG EN").code == 200);
  CHECK(command(session, "LANG").code == 200);  // RFC 2640: no argument, the default
  const auto french = command(session, "LANG FR");
  CHECK(french.code == 504);
  CHECK(french.text == "Only EN is supported.");
}

TEST_CASE("SBUF takes a byte count that fits 32 bits", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "SBUF 1048576").text == "SBUF Command Successful.");
  CHECK(command(session, "SBUF 0").code == 200);
  CHECK(command(session, "SBUF").code == 501);
  CHECK(command(session, "SBUF big").code == 501);
  CHECK(command(session, "SBUF 4294967296").code == 501);
}

TEST_CASE("TREV sets the marker period and refuses a bad one", "[session][transfer_params]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "TREV PERF 5").code == 200);
  CHECK(command(session, "TREV RESTART 10").code == 200);
  CHECK(command(session, "TREV PERF 0").code == 501);
  CHECK(command(session, "TREV PERF 3601").code == 501);
  CHECK(command(session, "TREV").text == "TREV RESTART|PERF <seconds>.");
}

}  // namespace
}  // namespace gridftp::server::testing
