#include "server/session/login_commands.hpp"

#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "security/digest.hpp"
#include "server/auth/account_home.hpp"
#include "server/auth/path_restrictions.hpp"
#include "server/process/session_process.hpp"

namespace gridftp::server {
namespace {

namespace asio = transport::asio;
namespace rc = protocol::control::reply_code;

// Runs on the blocking pool: password hashing is deliberately slow and must not hold an I/O
// thread. Parameters are values because the frame outlives the caller's locals.
transport::awaitable<std::optional<auth::UserContext>> check_login(
    const auth::Authenticator* authenticator, std::string user, std::string password) {
  auto result = authenticator->login(user, password);
  if (!result) co_return std::nullopt;
  co_return std::move(*result);
}

}  // namespace

LoginCommands::LoginCommands(SessionServices& services, const ControlSecurity& security,
                             SessionReplies& replies, std::function<void()> logged_in,
                             asio::any_io_executor executor, std::string tag)
    : services_(services),
      security_(security),
      replies_(replies),
      logged_in_(std::move(logged_in)),
      executor_(std::move(executor)),
      log_(services.log),
      tag_(std::move(tag)),
      login_(services.registry) {}

transport::awaitable<void> LoginCommands::on_user(const std::string& argument) {
  if (login_.is_logged_in()) {
    replies_.send_error(Condition::BadSequence, "Already logged in; reconnect to change user.");
    co_return;
  }
  if (argument.empty()) {
    replies_.send_error(make_error_code(protocol::Errc::MissingArgument));
    co_return;
  }
  login_.expect_password(argument);
  replies_.send(rc::kNeedPassword, "Password required for " + argument + ".");
}

transport::awaitable<void> LoginCommands::on_pass(const std::string& argument) {
  if (login_.is_logged_in()) {
    replies_.send(rc::kSuperfluous, "Already logged in.");
    co_return;
  }
  if (!security_.frontend.empty()) {
    co_await frontend_login(argument);
    co_return;
  }
  if (security_.gsi_protected) {
    const std::string user = login_.claimed_user();
    login_.end_attempt();
    co_await gsi_login(security_.peer_dn, user);
    co_return;
  }
  const std::string user = login_.claimed_user();
  std::optional<auth::UserContext> context = co_await asio::co_spawn(
      services_.blocking_pool, check_login(&services_.authenticator, user, argument),
      transport::use_awaitable);
  login_.end_attempt();
  const auto method = services_.authenticator.is_anonymous_name(user)
                          ? protocol::metrics::LoginMethod::Anonymous
                          : protocol::metrics::LoginMethod::Password;
  if (services_.metrics) services_.metrics->login(method, context.has_value());
  if (!context) {
    co_await refuse_login(user);
    co_return;
  }
  finish_password_login(std::move(*context));
}

void LoginCommands::finish_password_login(auth::UserContext login_context) {
  auto* context = &login_context;
  if (!login_.count_against(context->name)) {
    log_->warn("{} login refused user={}: max_sessions_per_user reached", tag_, context->name);
    replies_.send_error(Condition::LoginFailed, "Too many sessions for this user.");
    return;
  }
  // Started as root, this is a session process (start-up refuses root otherwise): from here on
  // it is the account the login's kind runs as, Globus's anonymous_user or vsftpd's
  // guest_username, never root (server/config/session_accounts.hpp).
  const auto& run_as =
      context->anonymous ? services_.config.anonymous.account : services_.config.accounts.account;
  if (services_.switches_account) {
    auto became = run_as.empty() ? make_error(error_code_for(Condition::LoginFailed))
                                 : become_account(run_as);
    if (!became) {
      log_->error("{} login refused user={}: cannot run the session as account '{}': {}", tag_,
                  context->name, run_as, became.error().message());
      login_.give_back_count();
      replies_.send_error(Condition::LoginFailed,
                          "Login failed: cannot switch to the session's account.");
      return;
    }
  }
  auto storage = open_user_storage(*context);
  if (!storage) {
    login_.give_back_count();
    replies_.send_error(Condition::LoginFailed, "Login failed: home directory unavailable.");
    return;
  }
  complete_login(std::move(*context), std::move(*storage));
  log_->info("{} login user={}", tag_, login_.user()->name);
}

transport::awaitable<void> LoginCommands::frontend_login(const std::string& argument) {
  const std::string user = login_.claimed_user();
  login_.end_attempt();
  constexpr std::string_view kGsi = ":gsi:";
  if (argument.starts_with(kGsi) && services_.gsi != nullptr) {
    co_await gsi_login(argument.substr(kGsi.size()), user);
    co_return;
  }
  if (argument == ":anonymous:" && services_.authenticator.is_anonymous_name(user)) {
    if (auto context = services_.authenticator.login(user, std::string())) {
      finish_password_login(std::move(*context));
      co_return;
    }
  }
  log_->warn("{} mover: frontend \"{}\" named no login this mover takes (user={})", tag_,
             security_.frontend, user);
  replies_.send_error(Condition::LoginFailed);
}

transport::awaitable<void> LoginCommands::gsi_login(const std::string& dn,
                                                    const std::string& user) {
  auto context = auth::map_gsi_user(*services_.gsi, dn, user);
  if (services_.metrics)
    services_.metrics->login(protocol::metrics::LoginMethod::Gsi, context.has_value());
  if (!context) {
    log_->warn("{} gridmap has no mapping dn=\"{}\" user={}", tag_, dn, user);
    replies_.send_error(
        Condition::LoginFailed,
        std::vector<std::string>{"Login incorrect. : Gridmap lookup failure: Could not map " + dn,
                                 "End."});
    co_return;
  }
  if (services_.config.gsi.process_per_session && services_.switches_account) {
    // This is a session process (see server/process): from here on we are the user.
    if (auto became = become_account(context->name); !became) {
      log_->error("{} cannot become account {}: {}", tag_, context->name, became.error().message());
      replies_.send_error(Condition::LoginFailed,
                          "Login failed: cannot switch to the mapped account.");
      co_return;
    }
  }
  auto storage = open_user_storage(*context);
  if (!storage) {
    replies_.send_error(Condition::LoginFailed, "Login failed: home directory unavailable.");
    co_return;
  }
  if (!login_.count_against(context->name)) {
    replies_.send_error(Condition::LoginFailed, "Too many sessions for this user.");
    co_return;
  }
  complete_login(std::move(*context), std::move(*storage));
  log_->info("{} login user={} dn=\"{}\"", tag_, login_.user()->name, dn);
}

// A refused password login waits login_failure_delay_ms before its 530, so guessing costs time,
// and the session ends after max_login_failures refusals (vsftpd's delay_failed_login and
// max_login_fails do the same).
transport::awaitable<void> LoginCommands::refuse_login(const std::string& user) {
  const auto refused = login_.note_refusal();
  const auto& limits = services_.config.limits;
  log_->warn("{} login failed user={} ({} of {})", tag_, user, refused, limits.max_login_failures);
  if (limits.login_failure_delay_ms > 0) {
    asio::steady_timer delay(executor_, std::chrono::milliseconds(limits.login_failure_delay_ms));
    boost::system::error_code ec;
    co_await delay.async_wait(asio::redirect_error(transport::use_awaitable, ec));
  }
  replies_.send_error(Condition::LoginFailed);
  if (login_.refusals_exhausted(limits.max_login_failures)) {
    replies_.send_error(Condition::ServiceClosing,
                        "Too many failed logins; closing the connection.");
    replies_.close_after_replies();
  }
}

Result<storage::PosixStorage> LoginCommands::open_user_storage(const auth::UserContext& user) {
  std::string why;
  auto rules = auth::path_rules_for(services_.config.server.restrict_paths, user, why);
  if (!rules) {
    log_->error("{} restrict_paths for user={}: {}", tag_, user.name, why);
    return make_error(rules.error());
  }
  auto storage = storage::PosixStorage::open(user.root, user.writable_areas, std::move(*rules));
  if (!storage) {
    log_->error("{} cannot open root {} for user={}: {}", tag_, user.root.string(), user.name,
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

void LoginCommands::settle_home() {
  const auto& server = services_.config.server;
  const auto* user = login_.user();
  if (!server.use_home_dirs || user == nullptr) return;
  std::optional<std::string> home;
  if (!server.home_dir.empty()) {
    home = server.home_dir;
  } else if (user->root == "/") {
    // The system's home for the account the session runs as.
    auto account = user->anonymous ? services_.config.anonymous.account : user->name;
    if (account.empty()) account = auth::own_account_name();
    home = auth::account_home(account);
  }
  if (!home) return;
  // A home that is missing or not allowed leaves the user at "/", as Globus does.
  if (auto resolved = protocol::control::resolve_virtual_path("/", *home))
    login_.settle_home(*resolved);
}

void LoginCommands::complete_login(auth::UserContext user, storage::PosixStorage storage) {
  login_.log_in(std::move(user), std::move(storage));
  settle_home();
  logged_in_();
  replies_.send(protocol::control::make_message_reply(
      rc::kLoggedIn, {"User " + login_.user()->name + " logged in."},
      services_.config.server.login_message));
}

transport::awaitable<void> LoginCommands::on_acct(const std::string&) {
  replies_.send(rc::kSuperfluous, "ACCT not needed.");
  co_return;
}

transport::awaitable<void> LoginCommands::on_quit(const std::string&) {
  replies_.send(rc::kClosingControl, "Goodbye.");
  replies_.close_after_replies();
  co_return;
}

}  // namespace gridftp::server
