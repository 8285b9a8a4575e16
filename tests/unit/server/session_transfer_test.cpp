// The verbs that move data, driven over a memory stream without a data connection: what they
// refuse before any data moves (RETR, STOR, APPE, LIST, NLST, MLSD, ERET, ESTO, BRET, BRST,
// BSTO, ABOR; RFC 959 §4.1.3, GFD.20, docs/WIRE.md §7).
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"
#include "transport/asio.hpp"

namespace gridftp::server::testing {
namespace {

namespace fs = std::filesystem;

TEST_CASE("Transfers without PORT or PASV get 425", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/data.bin", "0123456789");
  REQUIRE(command(session, "TYPE I").code ==
          200);  // BRET and BSTO need it (RFC 959: A is the default)
  for (const char* line :
       {"RETR /incoming/data.bin", "STOR /incoming/up.bin", "APPE /incoming/data.bin", "LIST",
        "LIST -la /incoming", "NLST /incoming", "MLSD /incoming", "ERET P 0 4 /incoming/data.bin",
        "ESTO A 0 /incoming/data.bin", "BRET 0 /incoming", "BSTO /incoming/batch"}) {
    INFO(line);
    const auto reply = command(session, line);
    CHECK(reply.code == 425);
    CHECK(reply.text == "Use PORT or PASV first.");
  }
  CHECK_FALSE(fs::exists(session.root() / "incoming" / "up.bin"));
  CHECK(fs::file_size(session.root() / "incoming" / "data.bin") == 10);
}

TEST_CASE("RETR refuses missing files and paths above the root with 550", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "RETR /incoming/none").text == "No such file or directory.");
  CHECK(command(session, "RETR ../../etc/passwd").text == "Permission denied.");
  CHECK(command(session, "ERET P 0 4 /incoming/none").code == 550);
}

TEST_CASE("STOR and APPE above the root get 550", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "STOR ../../tmp/x").text == "Permission denied.");
  CHECK(command(session, "APPE ../../tmp/x").text == "Permission denied.");
}

TEST_CASE("ERET and ESTO refuse other modules and missing fields with 501", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/data.bin", "0123456789");
  const auto eret = command(session, "ERET X 0 4 /incoming/data.bin");
  CHECK(eret.code == 501);
  CHECK(eret.text == "ERET supports only the P module: ERET P <offset> <length> <path>.");
  CHECK(command(session, "ERET P 0 4").code == 501);
  CHECK(command(session, "ERET").code == 501);
  const auto esto = command(session, "ESTO B 0 /incoming/data.bin");
  CHECK(esto.code == 501);
  CHECK(esto.text == "ESTO supports only the A module: ESTO A <offset> <path>.");
  CHECK(command(session, "ESTO A 0").code == 501);
}

TEST_CASE("MODE E sending after PASV is refused with 503", "[session][transfer]") {
  SessionHarnessOptions options;
  options.configure = [](ServerConfig& config) { config.listen.data_interface = "127.0.0.1"; };
  SessionHarness session(std::move(options));
  log_in(session);
  put_file(session, "incoming/data.bin", "0123456789");
  CHECK(command(session, "MODE E").code == 200);
  REQUIRE(command(session, "PASV").code == 227);
  // GFD.20: only the sender knows the EOF count, so a MODE E sender must connect.
  const auto reply = command(session, "RETR /incoming/data.bin");
  CHECK(reply.code == 503);
  CHECK(reply.text == "MODE E sending requires PORT or SPOR, not PASV.");
  CHECK(command(session, "MODE S").code == 200);
}

TEST_CASE("MODE E receiving after PORT is refused with 503", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "MODE E").code == 200);
  REQUIRE(command(session, "PORT 127,0,0,1,4,1").code == 200);
  const auto reply = command(session, "STOR /incoming/up.bin");
  CHECK(reply.code == 503);
  CHECK(reply.text == "MODE E receiving requires PASV or SPAS.");
  CHECK_FALSE(fs::exists(session.root() / "incoming" / "up.bin"));
}

TEST_CASE("BRET refuses bad arguments, files and the wrong settings", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/data.bin", "0123456789");
  REQUIRE(command(session, "TYPE I").code == 200);
  CHECK(command(session, "BRET").text == "BRET <refer-above bytes> <directory>.");
  CHECK(command(session, "BRET many /incoming").code == 501);
  CHECK(command(session, "BRET 0").code == 501);
  const auto file = command(session, "BRET 0 /incoming/data.bin");
  CHECK(file.code == 550);
  CHECK(file.text == "Not a directory.");
  CHECK(command(session, "BRET 0 /incoming/none").code == 550);
  CHECK(command(session, "TYPE A").code == 200);
  const auto ascii = command(session, "BRET 0 /incoming");
  CHECK(ascii.code == 503);
  CHECK(ascii.text == "BRET needs TYPE I and MODE S.");
}

TEST_CASE("BRST takes an offset and a path and refuses less", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  const auto reply = command(session, "BRST 100 sub/file.bin");
  CHECK(reply.code == 350);
  CHECK(reply.text == "Batch restart point set. Send BRET to resume.");
  CHECK(command(session, "BRST").code == 501);
  CHECK(command(session, "BRST abc file").code == 501);
}

TEST_CASE("BSTO refuses no directory, the wrong settings and a path above the root",
          "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  CHECK(command(session, "BSTO").text == "BSTO <directory>.");
  const auto ascii = command(session, "BSTO /incoming/batch");  // TYPE A, the default
  CHECK(ascii.code == 503);
  CHECK(ascii.text == "BSTO needs TYPE I and MODE S.");
  REQUIRE(command(session, "TYPE I").code == 200);
  CHECK(command(session, "BSTO ../../tmp/batch").code == 550);
  CHECK(command(session, "MODE E").code == 200);
  const auto mode_e = command(session, "BSTO /incoming/batch");
  CHECK(mode_e.code == 503);
  CHECK(mode_e.text == "BSTO needs TYPE I and MODE S.");
  CHECK_FALSE(fs::exists(session.root() / "incoming" / "batch"));
}

TEST_CASE("ABOR with no transfer answers 226", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  const auto reply = command(session, "ABOR");
  CHECK(reply.code == 226);
  CHECK(reply.text == "Abort successful");
  CHECK(command(session, "NOOP").code == 200);
}

TEST_CASE("A listing to a PORT where nothing listens ends in 425", "[session][transfer]") {
  SessionHarness session;
  log_in(session);
  // A loopback port that was free a moment ago (bound, then closed): the connect is refused.
  std::uint16_t port = 0;
  {
    transport::asio::io_context io;
    transport::tcp::acceptor probe(io, {transport::asio::ip::make_address("127.0.0.1"), 0});
    port = probe.local_endpoint().port();
  }
  REQUIRE(command(session,
                  "PORT 127,0,0,1," + std::to_string(port / 256) + "," + std::to_string(port % 256))
              .code == 200);
  auto reply = command(session, "NLST /incoming");
  if (reply.code == 150) reply = session.read_reply();
  CHECK(reply.code == 425);
  CHECK(command(session, "NOOP").code == 200);
}

}  // namespace
}  // namespace gridftp::server::testing
