// Data channel addresses over a memory stream: PASV, EPSV, SPAS (listeners on the loopback) and
// PORT, EPRT, SPOR (RFC 959 §4.1.2, RFC 2428, GFD.20), good and malformed.
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"

namespace gridftp::server::testing {
namespace {

SessionHarnessOptions loopback_data(const char* interface = "127.0.0.1") {
  SessionHarnessOptions options;
  options.configure = [interface](ServerConfig& config) {
    config.listen.data_interface = interface;
  };
  return options;
}

TEST_CASE("PASV answers 227 with the data interface's address", "[session][data_setup]") {
  SessionHarness session(loopback_data());
  log_in(session);
  const auto reply = command(session, "PASV");
  CHECK(reply.code == 227);
  CHECK(reply.text.starts_with("Entering Passive Mode (127,0,0,1,"));
  CHECK(reply.text.ends_with(")"));
}

TEST_CASE("PASV and SPAS name the listen section's passive_address, bound on the data interface",
          "[session][data_setup]") {
  SessionHarnessOptions options;
  options.configure = [](ServerConfig& config) {
    config.listen.data_interface = "127.0.0.1";
    config.listen.passive_address = "203.0.113.7";
  };
  SessionHarness session(std::move(options));
  log_in(session);
  const auto pasv = command(session, "PASV");
  CHECK(pasv.code == 227);
  CHECK(pasv.text.starts_with("Entering Passive Mode (203,0,113,7,"));
  const auto spas = command(session, "SPAS");
  CHECK(spas.code == 229);
  REQUIRE(spas.lines.size() == 3);
  CHECK(spas.lines[1].starts_with(" 203,0,113,7,"));
}

TEST_CASE("PASV on an IPv6 data interface answers 522", "[session][data_setup]") {
  SessionHarness session(loopback_data("::1"));
  log_in(session);
  const auto reply = command(session, "PASV");
  CHECK(reply.code == 522);
  CHECK(has_text(reply, "use EPSV"));
}

TEST_CASE("EPSV answers 229 with a port, EPSV ALL 200", "[session][data_setup]") {
  SessionHarness session(loopback_data());
  log_in(session);
  const auto reply = command(session, "EPSV");
  CHECK(reply.code == 229);
  CHECK(reply.text.starts_with("Entering Extended Passive Mode (|||"));
  CHECK(reply.text.ends_with("|)"));
  CHECK(command(session, "EPSV 1").code == 229);
  CHECK(command(session, "EPSV ALL").code == 200);
}

TEST_CASE("EPSV refuses the other protocol (522) and a malformed argument (501)",
          "[session][data_setup]") {
  SessionHarness session(loopback_data());
  log_in(session);
  const auto v6 = command(session, "EPSV 2");
  CHECK(v6.code == 522);
  CHECK(v6.text == "Network protocol not supported, use (1).");
  CHECK(command(session, "EPSV 7").text == "Bad EPSV argument.");
}

TEST_CASE("SPAS answers 229 with one address line", "[session][data_setup]") {
  SessionHarness session(loopback_data());
  log_in(session);
  const auto reply = command(session, "SPAS");
  CHECK(reply.code == 229);
  REQUIRE(reply.lines.size() == 3);
  CHECK(reply.lines[1].starts_with(" 127,0,0,1,"));
}

TEST_CASE("PORT and EPRT take an address even where nothing listens", "[session][data_setup]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "PORT 127,0,0,1,4,1").text == "PORT Command successful.");
  CHECK(command(session, "EPRT |1|127.0.0.1|1025|").text == "EPRT Command successful.");
  CHECK(command(session, "EPRT |2|::1|1025|").code == 200);
  CHECK(command(session, "SPOR 127,0,0,1,4,1 127,0,0,1,4,2").code == 200);
}

TEST_CASE("PORT refuses malformed addresses and low ports with 501", "[session][data_setup]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "PORT").text == "Illegal PORT command.");
  CHECK(command(session, "PORT 127,0,0,1,4").code == 501);
  CHECK(command(session, "PORT 300,0,0,1,4,1").code == 501);
  CHECK(command(session, "PORT a,b,c,d,e,f").code == 501);
  const auto low = command(session, "PORT 127,0,0,1,0,21");
  CHECK(low.code == 501);
  CHECK(low.text == "Illegal PORT command: data port below 1024 refused.");
}

TEST_CASE("EPRT refuses malformed arguments (501) and unknown families (522)",
          "[session][data_setup]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "EPRT").code == 501);
  CHECK(command(session, "EPRT |1|not-an-address|1025|").code == 501);
  CHECK(command(session, "EPRT |1|127.0.0.1|").code == 501);
  CHECK(command(session, "EPRT |9|127.0.0.1|1025|").code == 522);
  CHECK(command(session, "EPRT |1|127.0.0.1|21|").text ==
        "Illegal EPRT command: data port below 1024 refused.");
}

TEST_CASE("SPOR refuses an empty or malformed address list", "[session][data_setup]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "SPOR").text == "Illegal SPOR command.");
  CHECK(command(session, "SPOR 127,0,0,1,4").text == "Illegal SPOR command.");
  CHECK(command(session, "SPOR 127,0,0,1,0,80").code == 501);
}

TEST_CASE("PORT refuses a peer other than the control peer when the config asks",
          "[session][data_setup]") {
  SessionHarnessOptions options;
  options.configure = [](ServerConfig& config) { config.listen.require_data_peer_match = true; };
  SessionHarness session(std::move(options));
  log_in(session);
  // The harness's control peer is 127.0.0.1 (session_harness.cpp).
  const auto reply = command(session, "PORT 10,0,0,1,4,1");
  CHECK(reply.code == 501);
  CHECK(has_text(reply, "control connection's address"));
  CHECK(command(session, "EPRT |1|10.0.0.1|1025|").code == 501);
  CHECK(command(session, "PORT 127,0,0,1,4,1").code == 200);
}

}  // namespace
}  // namespace gridftp::server::testing
