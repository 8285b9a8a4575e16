// UserLogin: the login phase, the refused-login count, the registry's per-user count and the
// user's storage and home, without a session around them.
#include "server/session/user_login.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <stdlib.h>

namespace gridftp::server {
namespace {

namespace fs = std::filesystem;
using protocol::control::LoginPhase;

// A root directory with a "home" directory and a "file" in it, removed afterwards.
struct Root {
  Root() {
    char name[] = "/tmp/user-login-test-XXXXXX";
    path = ::mkdtemp(name);
    fs::create_directory(path / "home");
    std::ofstream(path / "file") << "x";
  }
  ~Root() { fs::remove_all(path); }
  Root(const Root&) = delete;
  Root& operator=(const Root&) = delete;
  fs::path path;
};

auth::UserContext user_on(const Root& root, const std::string& name) {
  return auth::UserContext{name, root.path, {"/"}, false};
}

storage::PosixStorage storage_on(const Root& root) {
  auto storage = storage::PosixStorage::open(root.path, {"/"});
  REQUIRE(storage);
  return std::move(*storage);
}

TEST_CASE("UserLogin moves from USER to PASS and back when the attempt ends", "[session][login]") {
  LimitsConfig limits;
  SessionRegistry registry(limits);
  UserLogin login(registry);
  CHECK(login.phase() == LoginPhase::AwaitingUser);
  CHECK_FALSE(login.is_logged_in());
  CHECK(login.user() == nullptr);
  CHECK(login.storage() == nullptr);
  CHECK(login.home() == "/");

  login.expect_password("alice");
  CHECK(login.phase() == LoginPhase::AwaitingPassword);
  CHECK(login.claimed_user() == "alice");
  login.end_attempt();
  CHECK(login.phase() == LoginPhase::AwaitingUser);
  CHECK_FALSE(login.is_logged_in());
  CHECK(login.user() == nullptr);
}

TEST_CASE("UserLogin logs a user in on their storage with home at /", "[session][login]") {
  const Root root;
  LimitsConfig limits;
  SessionRegistry registry(limits);
  UserLogin login(registry);
  login.expect_password("alice");
  login.end_attempt();
  login.log_in(user_on(root, "alice"), storage_on(root));
  CHECK(login.phase() == LoginPhase::LoggedIn);
  CHECK(login.is_logged_in());
  REQUIRE(login.user() != nullptr);
  CHECK(login.user()->name == "alice");
  REQUIRE(login.storage() != nullptr);
  CHECK(login.storage()->check_directory("/home"));
  CHECK(login.home() == "/");
}

TEST_CASE("UserLogin takes a home only where the user can enter a directory", "[session][login]") {
  const Root root;
  LimitsConfig limits;
  SessionRegistry registry(limits);
  UserLogin login(registry);
  CHECK_FALSE(login.settle_home("/home"));  // no storage before the login
  CHECK(login.home() == "/");
  login.log_in(user_on(root, "alice"), storage_on(root));
  CHECK_FALSE(login.settle_home("/missing"));
  CHECK_FALSE(login.settle_home("/file"));
  CHECK(login.home() == "/");
  CHECK(login.settle_home("/home"));
  CHECK(login.home() == "/home");
}

TEST_CASE("UserLogin counts refused logins up to the configured limit", "[session][login]") {
  LimitsConfig limits;
  SessionRegistry registry(limits);
  UserLogin login(registry);
  CHECK_FALSE(login.refusals_exhausted(2));
  CHECK(login.note_refusal() == 1);
  CHECK_FALSE(login.refusals_exhausted(2));
  CHECK(login.note_refusal() == 2);
  CHECK(login.refusals_exhausted(2));
  CHECK(login.refusals_exhausted(1));
  // 0: no limit, however many.
  CHECK_FALSE(login.refusals_exhausted(0));
}

TEST_CASE("UserLogin holds the registry's count for its user until the session leaves",
          "[session][login]") {
  const Root root;
  LimitsConfig limits;
  limits.max_sessions_per_user = 2;
  SessionRegistry registry(limits);
  UserLogin first(registry);
  UserLogin second(registry);
  REQUIRE(first.count_against("alice"));
  first.log_in(user_on(root, "alice"), storage_on(root));
  REQUIRE(second.count_against("alice"));
  UserLogin third(registry);
  CHECK_FALSE(third.count_against("alice"));  // max_sessions_per_user
  first.leave();
  first.leave();  // once only: alice still has `second`'s session
  CHECK(third.count_against("alice"));
  UserLogin fourth(registry);
  CHECK_FALSE(fourth.count_against("alice"));
}

TEST_CASE("UserLogin gives the count back for a login that failed after counting",
          "[session][login]") {
  LimitsConfig limits;
  limits.max_sessions_per_user = 1;
  SessionRegistry registry(limits);
  UserLogin failed(registry);
  REQUIRE(failed.count_against("bob"));
  failed.give_back_count();  // e.g. the home directory could not be opened
  UserLogin next(registry);
  CHECK(next.count_against("bob"));
}

TEST_CASE("UserLogin gives back no count for a session that never logged in", "[session][login]") {
  LimitsConfig limits;
  limits.max_sessions_per_user = 1;
  SessionRegistry registry(limits);
  {
    UserLogin login(registry);
    login.leave();  // nothing counted
  }
  UserLogin holder(registry);
  REQUIRE(holder.count_against("alice"));
  UserLogin other(registry);
  other.leave();  // must not give back alice's count, which it never held
  CHECK_FALSE(other.count_against("alice"));
}

}  // namespace
}  // namespace gridftp::server
