// Start-up never lets a server running as root serve a session as root
// (server/config/session_accounts.hpp): each refusal names the fix.
#include "server/config/session_accounts.hpp"

#include <map>
#include <string>

#include <catch2/catch.hpp>

using namespace gridftp::server;

namespace {

AccountLookup accounts() {
  static const std::map<std::string, uid_t, std::less<>> kAccounts{
      {"root", 0}, {"toor", 0}, {"nobody", 65534}, {"ftpusers", 1001}};
  return {[](std::string_view name) -> std::optional<uid_t> {
    const auto found = kAccounts.find(name);
    if (found == kAccounts.end()) return std::nullopt;
    return found->second;
  }};
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& line : lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("As root, anonymous sessions need an unprivileged account", "[config][accounts]") {
  ServerConfig config;
  config.anonymous.enabled = true;
  auto check = check_session_accounts(config, true, "root", accounts());
  REQUIRE(check.problems.size() == 1);
  CHECK(mentions(check.problems, "would run as root"));
  CHECK(mentions(check.problems, "[anonymous] account = \"nobody\""));
  CHECK(mentions(check.problems, "-anonymous-user"));

  config.anonymous.account = "toor";  // uid 0 under another name
  check = check_session_accounts(config, true, "root", accounts());
  REQUIRE(check.problems.size() == 1);
  CHECK(mentions(check.problems, "is a root account"));

  config.anonymous.account = "nosuch";
  check = check_session_accounts(config, true, "root", accounts());
  REQUIRE(check.problems.size() == 1);
  CHECK(mentions(check.problems, "no such account"));

  config.anonymous.account = "nobody";
  CHECK(check_session_accounts(config, true, "root", accounts()).problems.empty());

  config.gsi.process_per_session = false;  // one process would stay root
  check = check_session_accounts(config, true, "root", accounts());
  REQUIRE(check.problems.size() == 1);
  CHECK(mentions(check.problems, "process_per_session = true"));
}

TEST_CASE("As root, local password-file users need an account to run as", "[config][accounts]") {
  ServerConfig config;
  config.accounts.password_file = "/etc/gridftpd/users";
  auto check = check_session_accounts(config, true, "root", accounts());
  REQUIRE(check.problems.size() == 1);
  CHECK(mentions(check.problems, "[accounts] account"));
  config.accounts.account = "ftpusers";
  CHECK(check_session_accounts(config, true, "root", accounts()).problems.empty());
  config.accounts.account = "root";
  CHECK(mentions(check_session_accounts(config, true, "root", accounts()).problems,
                 "is a root account"));
}

TEST_CASE("As root, GSI sessions need a process each", "[config][accounts]") {
  ServerConfig config;
  config.gsi.enabled = true;
  CHECK(check_session_accounts(config, true, "root", accounts()).problems.empty());
  config.gsi.process_per_session = false;
  auto check = check_session_accounts(config, true, "root", accounts());
  REQUIRE(check.problems.size() == 1);
  CHECK(mentions(check.problems, "GSI sessions would run as root"));
  // Not root: one process serving every user as the server's own account is what was asked.
  CHECK(check_session_accounts(config, false, "gridftp", accounts()).problems.empty());
}

TEST_CASE("Not root: an account to run as is noted, never refused", "[config][accounts]") {
  ServerConfig config;
  config.anonymous.enabled = true;
  config.anonymous.account = "nobody";
  const auto check = check_session_accounts(config, false, "alice", accounts());
  CHECK(check.problems.empty());
  REQUIRE(check.notes.size() == 1);
  CHECK(mentions(check.notes, "run as alice"));
  config.anonymous.account = "alice";
  CHECK(check_session_accounts(config, false, "alice", accounts()).notes.empty());
}
