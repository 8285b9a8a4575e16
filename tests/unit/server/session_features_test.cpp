// Discovery and site commands over a memory stream: FEAT, HELP, SYST, NOOP, STAT, SITE, CKSM
// (RFC 2389, RFC 959 §4.1.3, GFD.20), and a check that every verb FEAT and HELP advertise has
// session tests in tests/unit/server/session_*_test.cpp.
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "security/tls_contexts.hpp"
#include "tests/unit/security/test_pki.hpp"
#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"

namespace gridftp::server::testing {
namespace {

// Each verb the session tests drive with a good case and a bad one, and the FEAT features they
// exercise (UTF8: OPTS UTF8; PARALLEL: OPTS RETR Parallelism; TVFS: the path tests; UDPX: SITE
// SETNETSTACK and SITE UDPX; BATCH: BRET, BRST, BSTO). A verb FEAT or HELP starts advertising
// fails the test below until it is added here with its tests.
const std::set<std::string> kCovered{
    // session_login_test.cpp
    "USER", "PASS", "ACCT", "QUIT",
    // session_directory_test.cpp
    "CWD", "CDUP", "PWD", "MKD", "RMD", "DELE", "RNFR", "RNTO", "SIZE", "MDTM", "MFMT", "MLST",
    // session_transfer_params_test.cpp
    "TYPE", "MODE", "STRU", "ALLO", "REST", "OPTS", "LANG", "SBUF", "TREV",
    // session_data_setup_test.cpp
    "PASV", "EPSV", "PORT", "EPRT", "SPAS", "SPOR",
    // session_transfer_test.cpp (no data connection: refusals, 425, ABOR with no transfer)
    "RETR", "STOR", "APPE", "LIST", "NLST", "MLSD", "ERET", "ESTO", "BRET", "BRST", "BSTO", "ABOR",
    // session_security_test.cpp, control_session_tls_test.cpp (AUTH TLS)
    "AUTH", "ADAT", "PBSZ", "PROT", "DCAU",
    // this file
    "FEAT", "HELP", "SYST", "NOOP", "STAT", "SITE", "CKSM",
    // FEAT features that are not verbs
    "UTF8", "PARALLEL", "TVFS", "UDPX", "BATCH"};

// The words HELP lists between its first line and "End".
std::vector<std::string> help_verbs(const TestReply& help) {
  std::vector<std::string> verbs;
  for (std::size_t i = 1; i + 1 < help.lines.size(); ++i) {
    std::istringstream words(help.lines[i]);
    for (std::string word; words >> word;) verbs.push_back(word);
  }
  return verbs;
}

// The first word of each FEAT feature line, and BATCH's verbs ("BATCH BRET;BRST;BSTO;").
std::vector<std::string> feat_verbs(const TestReply& feat) {
  std::vector<std::string> verbs;
  for (const auto& line : feat.lines) {
    if (!line.starts_with(" ")) continue;
    std::istringstream words(line);
    std::string name, parameters;
    words >> name >> parameters;
    verbs.push_back(name);
    if (name == "BATCH") {
      std::istringstream list(parameters);
      for (std::string verb; std::getline(list, verb, ';');) verbs.push_back(verb);
    }
  }
  return verbs;
}

SessionHarnessOptions everything_advertised() {
  // FTPS (AUTH TLS, PBSZ, PROT) and unauthenticated UDPX make FEAT list all it can without GSI.
  SessionHarnessOptions options;
  auto context = security::make_ftps_server_context(security::testing::test_pki().host());
  REQUIRE(context);
  options.ftps = std::move(*context);
  options.configure = [](ServerConfig& config) {
    config.tls.enabled = true;
    config.udpx.allow_unauthenticated = true;
  };
  return options;
}

TEST_CASE("Every verb FEAT and HELP advertise has session tests", "[session][features]") {
  SessionHarness session(everything_advertised());
  REQUIRE(session.read_reply().code == 220);
  const auto feat = command(session, "FEAT");
  REQUIRE(feat.code == 211);
  const auto help = command(session, "HELP");
  REQUIRE(help.code == 214);
  const auto from_help = help_verbs(help);
  const auto from_feat = feat_verbs(feat);
  CHECK(from_help.size() > 40);  // the parse found HELP's table
  CHECK(std::find(from_feat.begin(), from_feat.end(), "AUTH") != from_feat.end());
  CHECK(std::find(from_feat.begin(), from_feat.end(), "UDPX") != from_feat.end());
  for (const auto& verb : from_help) {
    INFO("HELP lists " << verb);
    CHECK(kCovered.count(verb) == 1);
  }
  for (const auto& verb : from_feat) {
    INFO("FEAT lists " << verb);
    CHECK(kCovered.count(verb) == 1);
  }
}

TEST_CASE("FEAT lists the extensions, and FTPS ones only with an FTPS context",
          "[session][features]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  const auto feat = command(session, "FEAT");
  CHECK(feat.code == 211);
  CHECK(feat.text == "Extensions supported");
  CHECK(feat.lines.back() == "211 End.");
  const auto verbs = feat_verbs(feat);
  for (const char* expected : {"MLST", "SIZE", "MDTM", "REST", "EPSV", "CKSM", "BATCH"})
    CHECK(std::find(verbs.begin(), verbs.end(), expected) != verbs.end());
  CHECK(std::find(verbs.begin(), verbs.end(), "AUTH") == verbs.end());
  CHECK(std::find(verbs.begin(), verbs.end(), "UDPX") == verbs.end());
  // FEAT takes no argument, but one is not refused (RFC 2389 §3.2 answers the same list).
  CHECK(command(session, "FEAT extra").code == 211);
}

TEST_CASE("HELP lists the verbs, an unknown verb gets 500, an empty line 500",
          "[session][features]") {
  SessionHarness session;
  REQUIRE(session.read_reply().code == 220);
  const auto help = command(session, "HELP");
  CHECK(help.code == 214);
  CHECK(help.text == "The following commands are recognized:");
  const auto unknown = command(session, "XYZZY");
  CHECK(unknown.code == 500);
  CHECK(unknown.text == "Unknown command.");
  const auto empty = command(session, "");
  CHECK(empty.code == 500);
  CHECK(empty.text == "Empty command.");
}

TEST_CASE("SYST and NOOP answer, lowercase verbs are the same verbs", "[session][features]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "SYST").code == 215);
  CHECK(command(session, "NOOP").text == "NOOP command successful.");
  CHECK(command(session, "noop").code == 200);
  CHECK(command(session, "syst").text == "UNIX Type: L8");
}

TEST_CASE("STAT without a path reports the session", "[session][features]") {
  SessionHarness session;
  log_in(session);
  const auto reply = command(session, "STAT");
  CHECK(reply.code == 211);
  const auto text = all_lines(reply);
  CHECK(text.find("Logged in as anonymous") != std::string::npos);
  CHECK(text.find("No data connection") != std::string::npos);
  CHECK(command(session, "STAT ../../etc").code == 550);
}

TEST_CASE("SITE HELP, CLIENTINFO and WHOAMI", "[session][features]") {
  SessionHarness session;
  log_in(session);
  const auto help = command(session, "SITE HELP");
  CHECK(help.code == 214);
  CHECK(all_lines(help).find("SETNETSTACK") != std::string::npos);
  CHECK(command(session, "SITE CLIENTINFO appname=\"test\";").code == 250);
  const auto whoami = command(session, "SITE WHOAMI");
  CHECK(whoami.code == 200);
  CHECK(whoami.text == "anonymous");
}

TEST_CASE("SITE refuses unknown subcommands with 500", "[session][features]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "SITE CHMOD 777 /incoming").text == "Command not supported.");
  CHECK(command(session, "SITE").code == 500);
}

TEST_CASE("SITE STRIPE, a mover's commands, is refused in a session no frontend opened",
          "[session][features][striping]") {
  SessionHarness session;
  log_in(session);
  // A client that tries a mover's verbs gets the same answer as for any unknown SITE command,
  // and none of them took effect: the STOR after PART is an ordinary one.
  for (const char* line : {"SITE STRIPE PART", "SITE STRIPE SEND 2 0",
                           "SITE STRIPE BEGIN /incoming/x", "SITE STRIPE COMMIT /incoming/x",
                           "SITE STRIPE CRED abcd", "SITE STRIPE CRED END", "SITE STRIPE"}) {
    INFO(line);
    const auto reply = command(session, line);
    CHECK(reply.code == 500);
    CHECK(reply.text == "Command not supported.");
  }
  CHECK_FALSE(std::filesystem::exists(session.root() / "incoming" / "x"));
}

TEST_CASE("SITE SETNETSTACK picks TCP or UDPX and refuses UDT and unknown drivers",
          "[session][features]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "SITE SETNETSTACK udpx")
            .text.starts_with("Data channel network stack set to UDPX"));
  CHECK(command(session, "SITE SETNETSTACK tcp").text == "Data channel network stack set to TCP.");
  const auto udt = command(session, "SITE SETNETSTACK udt");
  CHECK(udt.code == 504);
  CHECK(has_text(udt, "UDT is not supported"));
  CHECK(command(session, "SITE SETNETSTACK carrier-pigeon").code == 504);
  CHECK(command(session, "SITE SETNETSTACK").code == 504);
  CHECK(command(session, "SITE SETNETSTACK udpx:bogus=1").code == 501);
}

TEST_CASE("SITE UDPX STAT reports, RATE needs a running transfer", "[session][features]") {
  SessionHarness session;
  log_in(session);
  const auto stat = command(session, "SITE UDPX STAT");
  CHECK(stat.code == 200);
  CHECK(all_lines(stat).find("no UDPX transfer yet") != std::string::npos);
  CHECK(command(session, "SITE UDPX RATE 500M").text == "No UDPX transfer is running.");
  CHECK(command(session, "SITE UDPX RATE fast").code == 501);
  CHECK(command(session, "SITE UDPX").code == 501);
}

TEST_CASE("SITE DURABLE and SITE PARTIALS", "[session][features]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "SITE DURABLE ON").text.starts_with("Durable"));
  CHECK(command(session, "SITE DURABLE").text.starts_with("Durable"));
  CHECK(command(session, "SITE DURABLE OFF").text.starts_with("Not durable"));
  CHECK(command(session, "SITE DURABLE MAYBE").code == 501);
  const auto partials = command(session, "SITE PARTIALS /incoming");
  CHECK(partials.code == 200);
  CHECK(partials.text.starts_with("Partial uploads in /incoming: 0"));
  CHECK(command(session, "SITE PARTIALS ../../tmp").code == 550);
}

TEST_CASE("CKSM computes a file's checksum in the root", "[session][features]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/abc.txt", "abc");
  const auto md5 = command(session, "CKSM MD5 0 -1 /incoming/abc.txt");
  CHECK(md5.code == 213);
  CHECK(md5.text == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(command(session, "CKSM ADLER32 0 -1 /incoming/abc.txt").text == "024d0127");
  // A range: "bc".
  CHECK(command(session, "CKSM MD5 1 2 /incoming/abc.txt").text ==
        "5360af35bde9ebd8f01f492dc059593c");
}

TEST_CASE("CKSM refuses malformed requests, unknown algorithms and missing files",
          "[session][features]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/abc.txt", "abc");
  CHECK(command(session, "CKSM MD5 0 -1").text == "CKSM <algorithm> <offset> <length> <path>.");
  CHECK(command(session, "CKSM").code == 501);
  CHECK(command(session, "CKSM MD5 zero -1 /incoming/abc.txt").code == 501);
  CHECK(command(session, "CKSM MD5 0 -2 /incoming/abc.txt").code == 501);
  const auto unknown = command(session, "CKSM MD4 0 -1 /incoming/abc.txt");
  CHECK(unknown.code == 500);
  CHECK(unknown.text == "Unknown checksum algorithm requested.");
  CHECK(command(session, "CKSM MD5 0 -1 /incoming/none").code == 550);
  CHECK(command(session, "CKSM MD5 0 -1 ../../etc/passwd").code == 550);
}

}  // namespace
}  // namespace gridftp::server::testing
