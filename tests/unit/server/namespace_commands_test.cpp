// NamespaceCommands without a session: each of CWD CDUP PWD MKD RMD DELE RNFR RNTO SIZE MDTM MFMT
// MLST run on a logged-in UserLogin over a temporary root, its replies recorded, with at least
// one bad input per verb (RFC 959 §4.1.3, RFC 3659).
#include "server/session/namespace_commands.hpp"

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/part_test_support.hpp"

namespace gridftp::server::testing {
namespace {

namespace fs = std::filesystem;
using protocol::control::Verb;

// A NamespaceCommands over a fresh root, logged in unless told not to.
struct Namespace : UserOnRoot {
  using UserOnRoot::UserOnRoot;

  // Runs `handler` with `argument` and returns its one reply.
  protocol::control::Reply run(
      transport::awaitable<void> (NamespaceCommands::*handler)(const std::string&),
      const std::string& argument = "") {
    run_handler((commands.*handler)(argument));
    return replies.take();
  }

  RecordingReplies replies;
  NamespaceCommands commands{login, replies, quiet_logger(), "[s1]"};
};

using N = NamespaceCommands;

TEST_CASE("NamespaceCommands starts at the root and enters the home it is given",
          "[session][directory]") {
  Namespace names;
  CHECK(names.commands.working_directory() == "/");
  names.commands.enter_home("/home/alice");
  CHECK(names.commands.working_directory() == "/home/alice");
  CHECK(names.run(&N::on_pwd).lines.front() == "\"/home/alice\" is current directory.");
}

TEST_CASE("NamespaceCommands CWD moves into a directory and refuses a missing one",
          "[session][directory]") {
  Namespace names;
  fs::create_directories(names.root.path / "data" / "sub");
  const auto moved = names.run(&N::on_cwd, "data/sub");
  CHECK(moved.code == 250);
  CHECK(moved.lines.front() == "CWD command successful.");
  CHECK(names.commands.working_directory() == "/data/sub");

  const auto missing = names.run(&N::on_cwd, "/no/such");
  CHECK(missing.code == 550);
  CHECK(missing.lines.front() == "No such file or directory.");
  CHECK(names.commands.working_directory() == "/data/sub");  // unchanged

  const auto above = names.run(&N::on_cwd, "../../..");
  CHECK(above.code == 550);
  CHECK(above.lines.front() == "Permission denied.");

  CHECK(names.run(&N::on_cwd, "").code == 250);  // no argument: the root
  CHECK(names.commands.working_directory() == "/");
}

TEST_CASE("NamespaceCommands CWD into a file is refused", "[session][directory]") {
  Namespace names;
  names.root.put("file.txt", "abc");
  const auto reply = names.run(&N::on_cwd, "file.txt");
  CHECK(reply.code == 550);
  CHECK(reply.lines.front() == "Not a directory.");
}

TEST_CASE("NamespaceCommands answers 530 before a user has a file system view",
          "[session][directory]") {
  Namespace names(false);
  const auto handler = GENERATE(&N::on_cwd, &N::on_mkd, &N::on_rmd, &N::on_dele, &N::on_rnfr,
                                &N::on_rnto, &N::on_size, &N::on_mdtm, &N::on_mfmt, &N::on_mlst);
  const auto reply = names.run(handler, "x");
  CHECK(reply.code == 530);
  CHECK(reply.lines.front() == "Please login with USER and PASS.");
}

TEST_CASE("NamespaceCommands CDUP goes up one level and stays at the root",
          "[session][directory]") {
  Namespace names;
  fs::create_directories(names.root.path / "a" / "b");
  REQUIRE(names.run(&N::on_cwd, "/a/b").code == 250);
  CHECK(names.run(&N::on_cdup).code == 250);
  CHECK(names.commands.working_directory() == "/a");
  CHECK(names.run(&N::on_cdup).code == 250);
  CHECK(names.run(&N::on_cdup).code == 250);  // at the root: stays there, no error
  CHECK(names.commands.working_directory() == "/");
}

TEST_CASE("NamespaceCommands CDUP from a directory removed underneath it is refused",
          "[session][directory]") {
  Namespace names;
  fs::create_directories(names.root.path / "gone" / "sub");
  REQUIRE(names.run(&N::on_cwd, "/gone/sub").code == 250);
  fs::remove_all(names.root.path / "gone");
  const auto reply = names.run(&N::on_cdup);
  CHECK(reply.code == 550);
  CHECK(names.commands.working_directory() == "/gone/sub");
}

TEST_CASE("NamespaceCommands PWD doubles a quote in the path and ignores an argument",
          "[session][directory]") {
  Namespace names;
  fs::create_directories(names.root.path / "say \"hi\"");
  REQUIRE(names.run(&N::on_cwd, "say \"hi\"").code == 250);
  const auto reply = names.run(&N::on_pwd, "/elsewhere");
  CHECK(reply.code == 257);
  CHECK(reply.lines.front() == "\"/say \"\"hi\"\"\" is current directory.");
}

TEST_CASE("NamespaceCommands MKD makes a directory once", "[session][directory]") {
  Namespace names;
  const auto made = names.run(&N::on_mkd, "new");
  CHECK(made.code == 257);
  CHECK(made.lines.front() == "\"/new\" directory created.");
  CHECK(fs::is_directory(names.root.path / "new"));
  const auto again = names.run(&N::on_mkd, "/new");
  CHECK(again.code == 553);
  CHECK(again.lines.front() == "File exists.");
  CHECK(names.run(&N::on_mkd, "/no/parent").code == 550);
}

TEST_CASE("NamespaceCommands RMD removes an empty directory only", "[session][directory]") {
  Namespace names;
  fs::create_directories(names.root.path / "empty");
  names.root.put("full/file", "x");
  CHECK(names.run(&N::on_rmd, "empty").lines.front() == "RMD command successful.");
  CHECK_FALSE(fs::exists(names.root.path / "empty"));
  const auto full = names.run(&N::on_rmd, "full");
  CHECK(full.code == 550);
  CHECK(full.lines.front() == "Directory not empty.");
  CHECK(fs::exists(names.root.path / "full" / "file"));
}

TEST_CASE("NamespaceCommands DELE removes a file and refuses a missing one",
          "[session][directory]") {
  Namespace names;
  names.root.put("file", "x");
  const auto removed = names.run(&N::on_dele, "/file");
  CHECK(removed.code == 250);
  CHECK(removed.lines.front() == "DELE command successful.");
  CHECK_FALSE(fs::exists(names.root.path / "file"));
  const auto missing = names.run(&N::on_dele, "/file");
  CHECK(missing.code == 550);
  CHECK(missing.lines.front() == "No such file or directory.");
}

TEST_CASE("NamespaceCommands RNFR then RNTO renames", "[session][directory]") {
  Namespace names;
  names.root.put("old", "x");
  const auto from = names.run(&N::on_rnfr, "old");
  CHECK(from.code == 350);
  CHECK(from.lines.front() == "File exists, ready for destination name.");
  const auto to = names.run(&N::on_rnto, "new");
  CHECK(to.code == 250);
  CHECK(to.lines.front() == "Rename successful.");
  CHECK(fs::exists(names.root.path / "new"));
  CHECK_FALSE(fs::exists(names.root.path / "old"));
  // The pending rename was used up.
  CHECK(names.run(&N::on_rnto, "newer").code == 503);
}

TEST_CASE("NamespaceCommands RNFR of a missing file leaves nothing pending",
          "[session][directory]") {
  Namespace names;
  CHECK(names.run(&N::on_rnfr, "missing").code == 550);
  const auto to = names.run(&N::on_rnto, "new");
  CHECK(to.code == 503);
  CHECK(to.lines.front() == "Bad sequence of commands.");
}

TEST_CASE("NamespaceCommands forgets a pending RNFR at any command but RNTO",
          "[session][directory]") {
  const auto verb = GENERATE(Verb::Noop, Verb::Rnfr, Verb::Stat, Verb::Retr, Verb::Cwd);
  Namespace names;
  names.root.put("old", "x");
  REQUIRE(names.run(&N::on_rnfr, "old").code == 350);
  names.commands.before_command(verb);
  CHECK(names.run(&N::on_rnto, "new").code == 503);
  CHECK(fs::exists(names.root.path / "old"));

  REQUIRE(names.run(&N::on_rnfr, "old").code == 350);
  names.commands.before_command(Verb::Rnto);
  CHECK(names.run(&N::on_rnto, "new").code == 250);
}

TEST_CASE("NamespaceCommands RNTO above the root is refused and forgets the source",
          "[session][directory]") {
  Namespace names;
  names.root.put("old", "x");
  REQUIRE(names.run(&N::on_rnfr, "old").code == 350);
  const auto to = names.run(&N::on_rnto, "../../outside");
  CHECK(to.code == 550);
  CHECK(to.lines.front() == "Permission denied.");
  CHECK(fs::exists(names.root.path / "old"));
  CHECK(names.run(&N::on_rnto, "new").code == 503);
}

TEST_CASE("NamespaceCommands SIZE gives a file's bytes and refuses a directory",
          "[session][directory]") {
  Namespace names;
  names.root.put("five", "12345");
  fs::create_directories(names.root.path / "dir");
  const auto size = names.run(&N::on_size, "five");
  CHECK(size.code == 213);
  CHECK(size.lines.front() == "5");
  const auto directory = names.run(&N::on_size, "dir");
  CHECK(directory.code == 550);
  CHECK(directory.lines.front() == "Not a plain file.");
  CHECK(names.run(&N::on_size, "missing").code == 550);
}

TEST_CASE("NamespaceCommands MFMT sets the time MDTM then reports", "[session][directory]") {
  Namespace names;
  names.root.put("file", "x");
  const auto set = names.run(&N::on_mfmt, "20200102030405 file");
  CHECK(set.code == 213);
  CHECK(set.lines.front() == "Modify=20200102030405; file");
  const auto got = names.run(&N::on_mdtm, "file");
  CHECK(got.code == 213);
  CHECK(got.lines.front() == "20200102030405");
}

TEST_CASE("NamespaceCommands MDTM of a missing file is refused", "[session][directory]") {
  Namespace names;
  const auto reply = names.run(&N::on_mdtm, "missing");
  CHECK(reply.code == 550);
  CHECK(reply.lines.front() == "No such file or directory.");
}

TEST_CASE("NamespaceCommands MFMT refuses a missing path, a bad time and a missing file",
          "[session][directory]") {
  Namespace names;
  names.root.put("file", "x");
  CHECK(names.run(&N::on_mfmt, "20200102030405").code == 501);  // no path
  CHECK(names.run(&N::on_mfmt, "2020-01-02 file").code == 501);
  CHECK(names.run(&N::on_mfmt, "20200102030405 missing").code == 550);
}

TEST_CASE("NamespaceCommands MLST names the object by the path given", "[session][directory]") {
  Namespace names;
  names.root.put("dir/file", "abc");
  const auto reply = names.run(&N::on_mlst, "dir/file");
  CHECK(reply.code == 250);
  REQUIRE(reply.lines.size() == 3);
  CHECK(reply.lines[0] == "Listing /dir/file");
  CHECK(reply.lines[1].rfind(' ', 0) == 0);
  CHECK(reply.lines[1].find("Type=file;") != std::string::npos);
  CHECK(reply.lines[1].find("Size=3;") != std::string::npos);
  CHECK(reply.lines[1].ends_with(" /dir/file"));
  CHECK(reply.lines[2] == "End.");
  CHECK(names.run(&N::on_mlst, "dir/missing").code == 550);
}

}  // namespace
}  // namespace gridftp::server::testing
