// USER, PASS, ACCT, QUIT: getting in and out (RFC 959 §4.1.1); AUTH/ADAT live in security_commands.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "security/digest.hpp"
#include "server/auth/account_home.hpp"
#include "server/auth/path_restrictions.hpp"
#include "server/process/session_process.hpp"
#include "server/session/control_session.hpp"

namespace gridftp::server {
namespace {

namespace rc = protocol::control::reply_code;
using protocol::control::LoginPhase;

// Runs on the blocking pool: password hashing is deliberately slow and must not hold an I/O
// thread. Parameters are values because the frame outlives the caller's locals.
transport::awaitable<std::optional<auth::UserContext>> check_login(
    const auth::Authenticator* authenticator, std::string user, std::string password) {
  auto result = authenticator->login(user, password);
  if (!result) co_return std::nullopt;
  co_return std::move(*result);
}

}  // namespace

transport::awaitable<void> ControlSession::on_user(const std::string& argument) {
  if (phase_ == LoginPhase::LoggedIn) {
    send_error(Condition::BadSequence, "Already logged in; reconnect to change user.");
    co_return;
  }
  if (argument.empty()) {
    send_error(make_error_code(protocol::Errc::MissingArgument));
    co_return;
  }
  pending_user_ = argument;
  phase_ = LoginPhase::AwaitingPassword;
  send(rc::kNeedPassword, "Password required for " + argument + ".");
}

transport::awaitable<void> ControlSession::on_pass(const std::string& argument) {
  if (phase_ == LoginPhase::LoggedIn) {
    send(rc::kSuperfluous, "Already logged in.");
    co_return;
  }
  if (security_
          .gsi_protected) {  // GSI: the certificate authenticated; the gridmap decides the account
    co_await gsi_login(argument);
    co_return;
  }
  const std::string user = pending_user_;
  std::optional<auth::UserContext> context = co_await asio::co_spawn(
      services_.blocking_pool, check_login(&services_.authenticator, user, argument),
      transport::use_awaitable);
  phase_ = LoginPhase::AwaitingUser;
  const auto method = services_.authenticator.is_anonymous_name(user)
                          ? protocol::metrics::LoginMethod::Anonymous
                          : protocol::metrics::LoginMethod::Password;
  if (services_.metrics) services_.metrics->login(method, context.has_value());
  if (!context) {
    co_await refuse_login(user);
    co_return;
  }
  if (!services_.registry.try_login(context->name)) {
    log_->warn("{} login refused user={}: max_sessions_per_user reached", tag(), context->name);
    send_error(Condition::LoginFailed, "Too many sessions for this user.");
    co_return;
  }
  counted_login_ = true;
  // Started as root, this is a session process (start-up refuses root otherwise): from here on
  // it is the account the login's kind runs as, Globus's anonymous_user or vsftpd's
  // guest_username, never root (server/config/session_accounts.hpp).
  const auto& run_as =
      context->anonymous ? services_.config.anonymous.account : services_.config.accounts.account;
  if (services_.switches_account) {
    auto became = run_as.empty() ? make_error(error_code_for(Condition::LoginFailed))
                                 : become_account(run_as);
    if (!became) {
      log_->error("{} login refused user={}: cannot run the session as account '{}': {}", tag(),
                  context->name, run_as, became.error().message());
      services_.registry.logout(context->name);
      counted_login_ = false;
      send_error(Condition::LoginFailed, "Login failed: cannot switch to the session's account.");
      co_return;
    }
  }
  auto storage = open_user_storage(*context);
  if (!storage) {
    services_.registry.logout(context->name);
    counted_login_ = false;
    send_error(Condition::LoginFailed, "Login failed: home directory unavailable.");
    co_return;
  }
  storage_.emplace(std::move(*storage));
  user_ = std::move(context);
  enter_home();
  phase_ = LoginPhase::LoggedIn;
  touch_idle();
  log_->info("{} login user={}", tag(), user_->name);
  send_logged_in();
}

// A refused password waits login_failure_delay_ms before its 530, so guessing costs time, and
// the session ends after max_login_failures refusals (vsftpd's delay_failed_login and
// max_login_fails do the same).
transport::awaitable<void> ControlSession::refuse_login(const std::string& user) {
  ++failed_logins_;
  const auto& limits = services_.config.limits;
  log_->warn("{} login failed user={} ({} of {})", tag(), user, failed_logins_,
             limits.max_login_failures);
  if (limits.login_failure_delay_ms > 0) {
    asio::steady_timer delay(executor_, std::chrono::milliseconds(limits.login_failure_delay_ms));
    boost::system::error_code ec;
    co_await delay.async_wait(asio::redirect_error(transport::use_awaitable, ec));
  }
  send_error(Condition::LoginFailed);
  if (limits.max_login_failures > 0 && failed_logins_ >= limits.max_login_failures) {
    send_error(Condition::ServiceClosing, "Too many failed logins; closing the connection.");
    close_after_replies();
  }
}

Result<storage::PosixStorage> ControlSession::open_user_storage(const auth::UserContext& user) {
  std::string why;
  auto rules = auth::path_rules_for(services_.config.server.restrict_paths, user, why);
  if (!rules) {
    log_->error("{} restrict_paths for user={}: {}", tag(), user.name, why);
    return make_error(rules.error());
  }
  auto storage = storage::PosixStorage::open(user.root, user.writable_areas, std::move(*rules));
  if (!storage) {
    log_->error("{} cannot open root {} for user={}: {}", tag(), user.root.string(), user.name,
                storage.error().message());
    return storage;
  }
  storage->expire_partials_after(
      std::chrono::seconds(services_.config.server.partial_expiry_seconds));
  storage->set_durable_uploads(services_.config.storage.durable);
  std::vector<security::DigestAlgorithm> checksums;
  for (const auto& name : services_.config.storage.checksums) {
    // The names were validated with the config; one that does not parse is simply not computed.
    if (const auto algorithm = security::parse_digest_algorithm(name))
      checksums.push_back(*algorithm);
  }
  storage->checksum_uploads(std::move(checksums));
  return storage;
}

void ControlSession::enter_home() {
  home_ = "/";
  const auto& server = services_.config.server;
  if (!server.use_home_dirs || !user_) return;
  std::optional<std::string> home;
  if (!server.home_dir.empty()) {
    home = server.home_dir;
  } else if (user_->root == "/") {
    // The system's home for the account the session runs as.
    auto account = user_->anonymous ? services_.config.anonymous.account : user_->name;
    if (account.empty()) account = auth::own_account_name();
    home = auth::account_home(account);
  }
  if (!home) return;
  auto resolved = protocol::control::resolve_virtual_path("/", *home);
  // A home that is missing or not allowed leaves the user at "/", as Globus does.
  if (!resolved || !storage_ || !storage_->check_directory(*resolved)) return;
  home_ = *resolved;
  settings_.cwd = home_;
}

transport::awaitable<void> ControlSession::on_acct(const std::string&) {
  send(rc::kSuperfluous, "ACCT not needed.");
  co_return;
}

transport::awaitable<void> ControlSession::on_quit(const std::string&) {
  send(rc::kClosingControl, "Goodbye.");
  close_after_replies();
  co_return;
}

}  // namespace gridftp::server
