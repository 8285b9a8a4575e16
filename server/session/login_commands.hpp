// Getting in and out: USER PASS ACCT QUIT (RFC 959 §4.1.1), and the login a GSI session makes
// instead of checking a password (the gridmap maps the authenticated DN, docs/WIRE.md §5). Owns
// the UserLogin: who is logged in, their file system view and home, the refused logins. It
// reaches the shared services (authenticator, config, metrics), the control channel's security
// (read only: was the session GSI-authenticated, as whom) and the replies; a successful login
// is announced to `logged_in`, which moves the working directory home and restarts the idle
// timer.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "protocol/core/result.hpp"
#include "server/session/control_security.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/session_services.hpp"
#include "server/session/user_login.hpp"
#include "transport/asio.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

class LoginCommands {
 public:
  // `executor` is the session strand (a refused login's delay waits on it); `tag` prefixes this
  // session's log lines ("[s7]").
  LoginCommands(SessionServices& services, const ControlSecurity& security, SessionReplies& replies,
                std::function<void()> logged_in, transport::asio::any_io_executor executor,
                std::string tag);
  LoginCommands(const LoginCommands&) = delete;
  LoginCommands& operator=(const LoginCommands&) = delete;

  UserLogin& login() { return login_; }
  const UserLogin& login() const { return login_; }

  transport::awaitable<void> on_user(const std::string& argument);
  transport::awaitable<void> on_pass(const std::string& argument);
  transport::awaitable<void> on_acct(const std::string& argument);
  transport::awaitable<void> on_quit(const std::string& argument);

 private:
  // PASS after AUTH GSSAPI/ADAT: the certificate authenticated; the gridmap decides the account.
  // The GSI user `dn` asked for account `user` (after ADAT, or named by a mover's frontend).
  transport::awaitable<void> gsi_login(const std::string& dn, const std::string& user);
  // A mover's session (docs/STRIPING.md): the frontend that proved itself in TLS names who its
  // session logged in: "PASS :gsi:<dn>" for a GSI user (USER their account), ":anonymous:"
  // for the anonymous one. The mover maps them with its own gridmap and config, as if they had
  // logged in here; anything else is refused (a mover never checks passwords).
  transport::awaitable<void> frontend_login(const std::string& argument);
  // A password or anonymous login that `context` accepted: the account switch, storage, 230.
  void finish_password_login(auth::UserContext context);
  // A refused password: the delay, the 530, and the end of the session after too many.
  transport::awaitable<void> refuse_login(const std::string& user);
  // The logged-in user's file system view: their root, writable areas and the configured path
  // restrictions made concrete for them. Logs why when it cannot be opened.
  Result<storage::PosixStorage> open_user_storage(const auth::UserContext& user);
  // After login: the user's starting directory, as Globus chooses it ([server] use_home_dirs,
  // home_dir), becomes what "~" stands for.
  void settle_home();
  // The login went through: home, `logged_in`, and the 230 with the site's login message
  // (Globus's login_msg) when there is one.
  void complete_login(auth::UserContext user, storage::PosixStorage storage);

  SessionServices& services_;
  const ControlSecurity& security_;
  SessionReplies& replies_;
  const std::function<void()> logged_in_;
  const transport::asio::any_io_executor executor_;
  std::shared_ptr<spdlog::logger> log_;
  const std::string tag_;
  UserLogin login_;
};

}  // namespace gridftp::server
