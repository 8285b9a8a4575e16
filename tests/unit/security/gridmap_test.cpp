#include "security/gridmap.hpp"

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "security/security_errors.hpp"
#include "tests/unit/security/temp_dir.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

Gridmap parsed(std::string_view text) {
  std::string message;
  auto gridmap = parse_gridmap(text, message);
  INFO(message);
  REQUIRE(gridmap.has_value());
  return std::move(*gridmap);
}

TEST_CASE("parse_gridmap reads the example of docs/WIRE.md 5.5", "[security][gridmap]") {
  const Gridmap gridmap = parsed(
      "# comment\n"
      "\"/O=Grid/OU=Test/CN=Test User\" gftest\n"
      "\"/DC=org/DC=example/CN=Some One\" alice,bob\n");
  REQUIRE(gridmap.entries().size() == 2);
  CHECK(gridmap.entries()[0].dn == "/O=Grid/OU=Test/CN=Test User");
  CHECK(gridmap.entries()[1].accounts == std::vector<std::string>{"alice", "bob"});
  CHECK(gridmap.default_account("/O=Grid/OU=Test/CN=Test User") == "gftest");
  CHECK(gridmap.default_account("/DC=org/DC=example/CN=Some One") == "alice");
  CHECK(gridmap.allows("/DC=org/DC=example/CN=Some One", "bob"));
  CHECK_FALSE(gridmap.allows("/DC=org/DC=example/CN=Some One", "gftest"));
  CHECK_FALSE(gridmap.default_account("/O=Grid/OU=Test/CN=Nobody"));
  CHECK_FALSE(gridmap.allows("/O=Grid/OU=Test/CN=Nobody", "gftest"));
}

TEST_CASE("parse_gridmap line vectors", "[security][gridmap]") {
  struct Row {
    std::string_view line;
    std::string_view dn;
    std::vector<std::string> accounts;
  };
  const Row rows[] = {
      {"/O=Grid/CN=NoSpaces alice", "/O=Grid/CN=NoSpaces", {"alice"}},
      {"  \t\"/O=Grid/CN=A B\"\talice,bob,carol  ", "/O=Grid/CN=A B", {"alice", "bob", "carol"}},
      {"\"/O=Grid/CN=A B\" alice ignored words", "/O=Grid/CN=A B", {"alice"}},
      {"\"/O=Grid/CN=A B\" alice # comment", "/O=Grid/CN=A B", {"alice"}},
      {"\"/O=Grid/CN=A B\" alice#comment", "/O=Grid/CN=A B", {"alice"}},
      {"\"/O=Grid/CN=A#B\" alice", "/O=Grid/CN=A#B", {"alice"}},
      {"\"/O=Grid/CN=Say \\\"hi\\\"\" alice", "/O=Grid/CN=Say \"hi\"", {"alice"}},
      {"\"/O=Grid/CN=Back\\\\slash\" alice", "/O=Grid/CN=Back\\slash", {"alice"}},
      {"\"/O=Grid/CN=Ends\\\\\" alice", "/O=Grid/CN=Ends\\", {"alice"}},
      {"\"/O=Grid/CN=\\x41\\x42\" alice", "/O=Grid/CN=AB", {"alice"}},
      {"\"/O=Grid/CN=J\\xc3\\xb6rg\" alice", "/O=Grid/CN=J\\xC3\\xB6rg", {"alice"}},
      {"\"/O=Grid/CN=\\xZZ\" alice", "/O=Grid/CN=xZZ", {"alice"}},
      {"\"/O=Grid/CN=\\q\" alice", "/O=Grid/CN=q", {"alice"}},
      {"\"/O=Grid/CN=A\" ,alice,,bob,", "/O=Grid/CN=A", {"alice", "bob"}},
      {"\"/O=Grid/CN=A\" alice\r", "/O=Grid/CN=A", {"alice"}},
  };
  for (const Row& row : rows) {
    INFO(row.line);
    const Gridmap gridmap = parsed(row.line);
    REQUIRE(gridmap.entries().size() == 1);
    CHECK(gridmap.entries()[0].dn == row.dn);
    CHECK(gridmap.entries()[0].accounts == row.accounts);
  }
}

TEST_CASE("parse_gridmap skips blank and comment lines", "[security][gridmap]") {
  for (const std::string_view text : {"", "\n", "   \n\t\n", "# only\n  # indented\n", "\r\n"}) {
    CHECK(parsed(text).entries().empty());
  }
}

TEST_CASE("parse_gridmap names the bad line", "[security][gridmap]") {
  struct Row {
    std::string_view text;
    std::string_view message;
  };
  static constexpr char kWithNul[] = "\"/O=Grid/CN=A\" al\0ice\n";
  const Row rows[] = {
      {"\"/O=Grid/CN=A alice\n", "line 1: missing closing quote"},
      {"# ok\n\n\"/O=Grid/CN=A\"\n", "line 3: no local account"},
      {"\"/O=Grid/CN=A\" alice\n/O=Grid/CN=B\n", "line 2: no local account"},
      {"\"/O=Grid/CN=A\" # alice\n", "line 1: no local account"},
      {"\"/O=Grid/CN=A\" ,,,\n", "line 1: no local account"},
      {"\"\" alice\n", "line 1: empty DN"},
      {"\"/O=Grid/CN=Ends\\\" alice\n", "line 1: missing closing quote"},
      {std::string_view(kWithNul, sizeof kWithNul - 1), "line 1: NUL byte"},
  };
  for (const Row& row : rows) {
    std::string message;
    CHECK(parse_gridmap(row.text, message).error() == Errc::MalformedGridmap);
    CHECK(message.rfind(row.message, 0) == 0);
    INFO(message);
  }
}

TEST_CASE("gridmap lookups use Globus's DN comparison", "[security][gridmap]") {
  const Gridmap gridmap = parsed(
      "\"/DC=org/UID=alice/CN=Alice\" alice\n"
      "\"/O=Grid/OU=Test/CN=Test User\" first,shared\n"
      "\"/o=grid/ou=test/cn=test user\" second\n");
  CHECK(gridmap.default_account("/DC=org/USERID=alice/CN=Alice") == "alice");
  CHECK(gridmap.default_account("/O=GRID/OU=Test/CN=Test User") == "first");
  // Like Globus, only the first matching line counts.
  CHECK(gridmap.allows("/O=Grid/OU=Test/CN=Test User", "shared"));
  CHECK_FALSE(gridmap.allows("/O=Grid/OU=Test/CN=Test User", "second"));
  CHECK_FALSE(gridmap.allows("/O=Grid/OU=Test/CN=Test User", "First"));  // accounts: exact
}

TEST_CASE("load_gridmap reads a file and prefixes errors with its path", "[security][gridmap]") {
  const testing::TempDir dir;
  const auto path = dir.path() / "grid-mapfile";
  testing::write_file(path, "\"/O=Grid/OU=Test/CN=Test User\" gftest\n",
                      std::filesystem::perms::owner_read | std::filesystem::perms::others_read);
  const auto gridmap = load_gridmap(path);
  REQUIRE(gridmap.has_value());
  CHECK(gridmap->default_account(testing::kUserDn) == "gftest");
  std::string message;
  testing::write_file(path, "ok alice\n\"broken\n");
  CHECK(load_gridmap(path, message).error() == Errc::MalformedGridmap);
  CHECK(message == path.string() + ": line 2: missing closing quote after the DN");
  CHECK(load_gridmap(dir.path() / "missing", message).error() == Condition::NotFound);
  CHECK(message.find("missing") != std::string::npos);
}

}  // namespace
}  // namespace gridftp::security
