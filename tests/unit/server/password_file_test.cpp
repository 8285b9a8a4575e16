#include "server/auth/password_file.hpp"

#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/core/errors.hpp"
#include "security/security_errors.hpp"

namespace gridftp::server::auth {
namespace {

// A well-formed hash (the PBKDF2 known answer from password_hash_test.cpp).
const std::string kHash =
    "$pbkdf2-sha256$1000$AAECAwQFBgcICQoLDA0ODw$yRTMTwbMbo9G0VfjobWqerzuuxe7BETNTErBbKKumGQ";

std::string line(std::string_view name, std::string_view root, std::string_view writable) {
  return std::string(name) + ":" + kHash + ":" + std::string(root) + ":" + std::string(writable);
}

// Parses a single line and returns its one problem (or "" if it parsed).
std::string problem_of(const std::string& text) {
  const PasswordFileParse parsed = parse_password_file(text);
  if (parsed.problems.empty()) {
    return {};
  }
  CHECK(parsed.accounts.empty());
  return parsed.problems.front();
}

TEST_CASE("password file parses accounts and skips comments and blank lines", "[auth]") {
  const std::string text = "# accounts\n\n   \n" + line("alice", "/srv/alice", "*") + "\n" +
                           line("bob.b-2_x", "/srv/bob", "") + "\r\n  # indented comment\n" +
                           line("carol", "/", "in,up/load") + "\n";
  const PasswordFileParse parsed = parse_password_file(text);
  CHECK(parsed.problems.empty());
  REQUIRE(parsed.accounts.size() == 3);
  CHECK(parsed.accounts[0].name == "alice");
  CHECK(parsed.accounts[0].password_hash == kHash);
  CHECK(parsed.accounts[0].root == "/srv/alice");
  CHECK(parsed.accounts[0].whole_root_writable);
  CHECK(parsed.accounts[0].writable_subdirs.empty());
  CHECK(parsed.accounts[1].name == "bob.b-2_x");
  CHECK_FALSE(parsed.accounts[1].whole_root_writable);
  CHECK(parsed.accounts[1].writable_subdirs.empty());
  CHECK(parsed.accounts[2].root == "/");
  CHECK(parsed.accounts[2].writable_subdirs == std::vector<std::string>{"in", "up/load"});
}

TEST_CASE("password file parse of empty text has no accounts and no problems", "[auth]") {
  const PasswordFileParse parsed = parse_password_file("");
  CHECK(parsed.accounts.empty());
  CHECK(parsed.problems.empty());
}

TEST_CASE("password file rejects a wrong number of fields", "[auth]") {
  CHECK(problem_of("alice:" + kHash + ":/srv") ==
        "line 1: expected 4 colon-separated fields (name:hash:root:writable), found 3");
  CHECK(problem_of(line("alice", "/srv", "*") + ":extra").rfind("line 1: expected 4", 0) == 0);
  CHECK(problem_of("just-a-name").rfind("line 1: expected 4", 0) == 0);
}

TEST_CASE("password file rejects bad user names", "[auth]") {
  const std::string_view name = GENERATE(as<std::string_view>{}, "", "al ice", "al/ice", "älice",
                                         "a$b", "abcdefghijklmnopqrstuvwxyz0123456");  // 33
  CHECK(problem_of(line(name, "/srv", "")) == "line 1: user name must be 1-32 of [A-Za-z0-9._-]");
}

TEST_CASE("password file accepts a 32-character user name", "[auth]") {
  CHECK(problem_of(line("abcdefghijklmnopqrstuvwxyz012345", "/srv", "")).empty());
}

TEST_CASE("password file rejects a malformed hash without echoing it", "[auth]") {
  const std::string problem = problem_of("alice:$pbkdf2-sha256$1000$secretish$x:/srv:");
  CHECK(problem.rfind("line 1: user 'alice': bad password hash: ", 0) == 0);
  CHECK(problem.find("secretish") == std::string::npos);
}

TEST_CASE("password file rejects a plain-text password", "[auth]") {
  CHECK(problem_of("alice:hunter2:/srv:").rfind("line 1: user 'alice': bad password hash", 0) == 0);
}

TEST_CASE("password file rejects a relative or escaping root", "[auth]") {
  CHECK(problem_of(line("alice", "srv/alice", "")) ==
        "line 1: user 'alice': root must be an absolute path");
  CHECK(problem_of(line("alice", "", "")) == "line 1: user 'alice': root must be an absolute path");
  CHECK(problem_of(line("alice", "/srv/../etc", "")) ==
        "line 1: user 'alice': root must not contain '..'");
}

TEST_CASE("password file rejects bad writable entries", "[auth]") {
  CHECK(problem_of(line("alice", "/srv", "/abs")) ==
        "line 1: user 'alice': writable entry '/abs' must be relative to the root");
  CHECK(problem_of(line("alice", "/srv", "in,../out")) ==
        "line 1: user 'alice': writable entry '../out' contains '..'");
  CHECK(problem_of(line("alice", "/srv", "in/../../x")) ==
        "line 1: user 'alice': writable entry 'in/../../x' contains '..'");
  CHECK(problem_of(line("alice", "/srv", "in,,out")) ==
        "line 1: user 'alice': empty entry in writable list");
  CHECK(problem_of(line("alice", "/srv", "in,")) ==
        "line 1: user 'alice': empty entry in writable list");
}

TEST_CASE("password file reports duplicates and keeps the first definition", "[auth]") {
  const std::string text = line("alice", "/one", "") + "\n# c\n" + line("alice", "/two", "*");
  const PasswordFileParse parsed = parse_password_file(text);
  REQUIRE(parsed.accounts.size() == 1);
  CHECK(parsed.accounts[0].root == "/one");
  REQUIRE(parsed.problems.size() == 1);
  CHECK(parsed.problems[0] == "line 3: duplicate user 'alice' (first defined on line 1)");
}

TEST_CASE("password file reports every bad line and keeps the good ones", "[auth]") {
  const std::string text =
      "bad\n" + line("alice", "/srv", "") + "\n" + line("bob", "rel", "") + "\n";
  const PasswordFileParse parsed = parse_password_file(text);
  REQUIRE(parsed.accounts.size() == 1);
  CHECK(parsed.accounts[0].name == "alice");
  REQUIRE(parsed.problems.size() == 2);
  CHECK(parsed.problems[0].rfind("line 1: ", 0) == 0);
  CHECK(parsed.problems[1].rfind("line 3: ", 0) == 0);
}

// A private temporary directory, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pwfile-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::filesystem::path write_file(const TempDir& dir, const std::string& text, mode_t mode) {
  const auto path = dir.path() / "passwd";
  std::ofstream(path) << text;
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  return path;
}

TEST_CASE("read_password_file reads a file only its owner can read", "[auth]") {
  const TempDir dir;
  const std::string text = line("alice", "/srv", "*") + "\n";
  const mode_t mode = GENERATE(mode_t{0600}, mode_t{0400}, mode_t{0700}, mode_t{0611});
  const auto read = read_password_file(write_file(dir, text, mode));
  REQUIRE(read);
  CHECK(*read == text);
}

TEST_CASE("read_password_file refuses a file group or others can read or write", "[auth]") {
  const TempDir dir;
  const mode_t mode =
      GENERATE(mode_t{0640}, mode_t{0620}, mode_t{0604}, mode_t{0602}, mode_t{0644}, mode_t{0666});
  const auto read = read_password_file(write_file(dir, "x\n", mode));
  REQUIRE_FALSE(read);
  CHECK(read.error() == security::Errc::FileTooPermissive);
}

TEST_CASE("read_password_file refuses a directory", "[auth]") {
  const TempDir dir;
  const auto read = read_password_file(dir.path());
  REQUIRE_FALSE(read);
  CHECK(read.error() == security::Errc::NotARegularFile);
}

TEST_CASE("read_password_file refuses a fifo without blocking", "[auth]") {
  const TempDir dir;
  const auto path = dir.path() / "fifo";
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  const auto read = read_password_file(path);
  REQUIRE_FALSE(read);
  CHECK(read.error() == security::Errc::NotARegularFile);
}

TEST_CASE("read_password_file refuses a file over the size limit", "[auth]") {
  const TempDir dir;
  const auto read =
      read_password_file(write_file(dir, std::string(kMaxPasswordFileBytes + 1, '#'), 0600));
  REQUIRE_FALSE(read);
  CHECK(read.error() == security::Errc::FileTooLarge);
}

TEST_CASE("read_password_file reports a missing file as not found", "[auth]") {
  const TempDir dir;
  const auto read = read_password_file(dir.path() / "absent");
  REQUIRE_FALSE(read);
  CHECK(read.error() == Condition::NotFound);
}

}  // namespace
}  // namespace gridftp::server::auth
