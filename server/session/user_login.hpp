// Who is logged in on one session: the login phase USER and PASS (or the GSI mapping) move
// through (RFC 959 §4.1.1), the user's account, their file system view and home, the refused
// password logins, and the session's count against its user in the SessionRegistry
// ([limits] max_sessions_per_user). State and the small rules over it; the commands that drive
// it live in login_commands.cpp (USER, PASS, and the GSI login after ADAT).
#pragma once

#include <optional>
#include <string>

#include "protocol/control/session_rules.hpp"
#include "server/auth/authenticator.hpp"
#include "server/session/session_registry.hpp"
#include "server/storage/posix_storage.hpp"

namespace gridftp::server {

class UserLogin {
 public:
  explicit UserLogin(SessionRegistry& registry) : registry_(registry) {}
  UserLogin(const UserLogin&) = delete;
  UserLogin& operator=(const UserLogin&) = delete;

  protocol::control::LoginPhase phase() const { return phase_; }
  bool is_logged_in() const { return phase_ == protocol::control::LoginPhase::LoggedIn; }

  // USER <name>: the name the next PASS logs in (or GSI maps); PASS is due next.
  void expect_password(std::string name);
  // The name USER gave for the login under way.
  const std::string& claimed_user() const { return claimed_user_; }
  // PASS (or its GSI equivalent) has been tried: whatever comes of it, another try starts over
  // with USER.
  void end_attempt();

  // Counts the session against `name` in the registry; false when that user already has
  // max_sessions_per_user sessions. A login that then fails gives the count back with
  // give_back_count(); a login that succeeds keeps it until leave().
  bool count_against(const std::string& name);
  void give_back_count();
  // The session ends: a logged-in user's count is given back (once).
  void leave();

  // The login succeeded: `user` on `storage`, home "/" until settle_home() finds theirs.
  void log_in(auth::UserContext user, storage::PosixStorage storage);
  // Makes `path` (a resolved virtual path) what "~" stands for when it is a directory the user
  // may enter; false leaves the home at "/", as Globus does with a missing or forbidden one.
  bool settle_home(const std::string& path);

  // A refused password login: how many this session has had now.
  unsigned note_refusal() { return ++refused_logins_; }
  // With `limit` > 0 ([limits] max_login_failures), whether the session has had that many.
  bool refusals_exhausted(unsigned limit) const { return limit > 0 && refused_logins_ >= limit; }

  // Null before the login.
  const auth::UserContext* user() const { return user_ ? &*user_ : nullptr; }
  // The user's file system view; null before the login.
  storage::PosixStorage* storage() { return storage_ ? &*storage_ : nullptr; }
  const std::string& home() const { return home_; }

 private:
  SessionRegistry& registry_;
  protocol::control::LoginPhase phase_ = protocol::control::LoginPhase::AwaitingUser;
  std::string claimed_user_;
  std::optional<auth::UserContext> user_;
  std::string home_ = "/";  // what "~" stands for
  std::optional<storage::PosixStorage> storage_;
  std::optional<std::string> counted_user_;  // the name the registry counts this session under
  unsigned refused_logins_ = 0;              // password logins refused in this session
};

}  // namespace gridftp::server
