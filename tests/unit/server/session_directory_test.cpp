// Navigation and file management through a memory stream: CWD, CDUP, PWD, MKD, RMD, DELE, RNFR,
// RNTO, SIZE, MDTM, MFMT, MLST (RFC 959 §4.1.3, RFC 3659), checked against the files on disk.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include "tests/unit/server/session_harness.hpp"
#include "tests/unit/server/session_test_helpers.hpp"

namespace gridftp::server::testing {
namespace {

namespace fs = std::filesystem;

TEST_CASE("CWD, PWD and CDUP move through the tree", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  fs::create_directories(session.root() / "incoming" / "sub");
  CHECK(command(session, "PWD").text == "\"/\" is current directory.");
  CHECK(command(session, "CWD /incoming/sub").code == 250);
  CHECK(command(session, "PWD").text == "\"/incoming/sub\" is current directory.");
  CHECK(command(session, "CDUP").code == 250);
  CHECK(command(session, "PWD").text == "\"/incoming\" is current directory.");
  CHECK(command(session, "CWD sub").code == 250);  // relative to the current directory
  CHECK(command(session, "PWD").text == "\"/incoming/sub\" is current directory.");
  CHECK(command(session, "CWD").code == 250);  // no argument: the root
  CHECK(command(session, "PWD").text == "\"/\" is current directory.");
  CHECK(command(session, "CDUP").code == 250);  // at the root CDUP stays there
  CHECK(command(session, "PWD").text == "\"/\" is current directory.");
}

TEST_CASE("CWD refuses a missing directory, a file and a path above the root",
          "[session][directory]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/file.txt", "abc");
  const auto missing = command(session, "CWD /no/such/dir");
  CHECK(missing.code == 550);
  CHECK(missing.text == "No such file or directory.");
  const auto file = command(session, "CWD /incoming/file.txt");
  CHECK(file.code == 550);
  CHECK(file.text == "Not a directory.");
  const auto above = command(session, "CWD ../../etc");
  CHECK(above.code == 550);
  CHECK(above.text == "Permission denied.");
  CHECK(command(session, "PWD").text == "\"/\" is current directory.");  // unchanged
}

TEST_CASE("MKD makes a directory and RMD removes it", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  const auto made = command(session, "MKD /incoming/new");
  CHECK(made.code == 257);
  CHECK(made.text == "\"/incoming/new\" directory created.");
  CHECK(fs::is_directory(session.root() / "incoming" / "new"));
  CHECK(command(session, "RMD /incoming/new").code == 250);
  CHECK_FALSE(fs::exists(session.root() / "incoming" / "new"));
}

TEST_CASE("MKD and RMD refuse what they cannot do", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  fs::create_directories(session.root() / "incoming" / "full");
  put_file(session, "incoming/full/inside", "x");
  SECTION("MKD of an existing directory") {
    CHECK(command(session, "MKD /incoming/full").code == 553);
  }
  SECTION("MKD outside the writable area") {
    CHECK(command(session, "MKD /elsewhere").code == 550);
    CHECK_FALSE(fs::exists(session.root() / "elsewhere"));
  }
  SECTION("MKD above the root") {
    const auto reply = command(session, "MKD ../../tmp/escaped");
    CHECK(reply.code == 550);
    CHECK(reply.text == "Permission denied.");
  }
  SECTION("RMD of a directory that is not empty") {
    const auto reply = command(session, "RMD /incoming/full");
    CHECK(reply.code == 550);
    CHECK(reply.text == "Directory not empty.");
    CHECK(fs::exists(session.root() / "incoming" / "full" / "inside"));
  }
  SECTION("RMD of a missing directory") {
    CHECK(command(session, "RMD /incoming/none").code == 550);
  }
}

TEST_CASE("DELE removes a file and refuses a missing one", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  const auto path = put_file(session, "incoming/gone.txt", "abc");
  CHECK(command(session, "DELE /incoming/gone.txt").code == 250);
  CHECK_FALSE(fs::exists(path));
  const auto again = command(session, "DELE /incoming/gone.txt");
  CHECK(again.code == 550);
  CHECK(again.text == "No such file or directory.");
  CHECK(command(session, "DELE ../../etc/passwd").code == 550);
}

TEST_CASE("RNFR then RNTO renames a file", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  const auto from = put_file(session, "incoming/a.txt", "abc");
  const auto rnfr = command(session, "RNFR /incoming/a.txt");
  CHECK(rnfr.code == 350);
  CHECK(command(session, "RNTO /incoming/b.txt").code == 250);
  CHECK_FALSE(fs::exists(from));
  CHECK(fs::file_size(session.root() / "incoming" / "b.txt") == 3);
}

TEST_CASE("RNTO without RNFR, and RNFR of what is missing or above the root",
          "[session][directory]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/a.txt", "abc");
  const auto alone = command(session, "RNTO /incoming/b.txt");
  CHECK(alone.code == 503);
  CHECK(alone.text == "Bad sequence of commands.");
  CHECK(command(session, "RNFR /incoming/missing").code == 550);
  CHECK(command(session, "RNTO /incoming/b.txt").code == 503);  // the failed RNFR set nothing
  CHECK(command(session, "RNFR ../../etc/passwd").code == 550);
  // One RNTO per RNFR: a second RNTO has nothing to rename.
  CHECK(command(session, "RNFR /incoming/a.txt").code == 350);
  CHECK(command(session, "RNTO /incoming/b.txt").code == 250);
  CHECK(command(session, "RNTO /incoming/c.txt").code == 503);
  CHECK(fs::exists(session.root() / "incoming" / "b.txt"));
  CHECK_FALSE(fs::exists(session.root() / "incoming" / "c.txt"));
}

TEST_CASE("SIZE answers a file's size and refuses directories and missing files",
          "[session][directory]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/five.bin", "12345");
  const auto size = command(session, "SIZE /incoming/five.bin");
  CHECK(size.code == 213);
  CHECK(size.text == "5");
  const auto directory = command(session, "SIZE /incoming");
  CHECK(directory.code == 550);
  CHECK(directory.text == "Not a plain file.");
  CHECK(command(session, "SIZE /incoming/none").code == 550);
  CHECK(command(session, "SIZE ../../etc/passwd").code == 550);
}

TEST_CASE("MFMT sets a file's time on disk and MDTM reads it back", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  const auto path = put_file(session, "incoming/t.txt", "abc");
  const auto set = command(session, "MFMT 20200102030405 /incoming/t.txt");
  CHECK(set.code == 213);
  CHECK(set.text == "Modify=20200102030405; /incoming/t.txt");
  struct stat facts {};
  REQUIRE(::stat(path.c_str(), &facts) == 0);
  CHECK(facts.st_mtime == 1577934245);  // 2020-01-02 03:04:05 UTC
  const auto got = command(session, "MDTM /incoming/t.txt");
  CHECK(got.code == 213);
  CHECK(got.text == "20200102030405");
}

TEST_CASE("MFMT and MDTM refuse bad input", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/t.txt", "abc");
  CHECK(command(session, "MFMT 20200102030405").code == 501);             // no path
  CHECK(command(session, "MFMT yesterday /incoming/t.txt").code == 501);  // not a time
  CHECK(command(session, "MFMT 20200102030405 /incoming/none").code == 550);
  CHECK(command(session, "MDTM /incoming/none").code == 550);
  CHECK(command(session, "MDTM ../../etc/passwd").code == 550);
}

TEST_CASE("MLST describes one file and refuses a missing one", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/m.txt", "abcd");
  const auto reply = command(session, "MLST /incoming/m.txt");
  CHECK(reply.code == 250);
  REQUIRE(reply.lines.size() == 3);
  // RFC 3659 §7.2: the facts line starts with a space and ends with the path.
  CHECK(reply.lines[1].starts_with(" "));
  CHECK(reply.lines[1].ends_with(" /incoming/m.txt"));
  CHECK(reply.lines[1].find("ize=4;") != std::string::npos);
  CHECK(reply.lines[1].find("ype=file;") != std::string::npos);
  CHECK(command(session, "MLST /incoming/none").code == 550);
  CHECK(command(session, "MLST ../../etc/passwd").code == 550);
}

TEST_CASE("STAT with a path lists it over the control channel", "[session][directory]") {
  SessionHarness session;
  log_in(session);
  put_file(session, "incoming/listed.txt", "abc");
  const auto reply = command(session, "STAT /incoming");
  CHECK(reply.code == 213);
  CHECK(reply.text == "Status of /incoming:");
  CHECK(all_lines(reply).find("listed.txt") != std::string::npos);
  CHECK(command(session, "STAT /incoming/none").code == 550);
}

}  // namespace
}  // namespace gridftp::server::testing
