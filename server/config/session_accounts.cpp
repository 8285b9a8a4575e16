#include "server/config/session_accounts.hpp"

#include <fmt/format.h>
#include <pwd.h>

namespace gridftp::server {
namespace {

// One kind of session that runs as a named account: anonymous or local password users.
struct SessionKind {
  std::string_view what;         // "anonymous sessions"
  std::string_view setting;      // "[anonymous] account"
  std::string_view globus_hint;  // ", or -anonymous-user NAME"; empty: none
  const std::string& account;
};

void check_as_root(const SessionKind& kind, const ServerConfig& config,
                   const AccountLookup& accounts, SessionAccountCheck& out) {
  if (kind.account.empty()) {
    out.problems.push_back(fmt::format(
        "{} would run as root, with only gridftpd's path checks between them and the whole file "
        "system: name an unprivileged account for them ({} = \"nobody\"{}), or start gridftpd as "
        "an unprivileged user",
        kind.what, kind.setting, kind.globus_hint));
    return;
  }
  const auto uid = accounts.uid_of(kind.account);
  if (!uid) {
    out.problems.push_back(fmt::format("{} = \"{}\": no such account (create it, or name another)",
                                       kind.setting, kind.account));
    return;
  }
  if (*uid == 0) {
    out.problems.push_back(fmt::format(
        "{} = \"{}\" is a root account: {} would run as root; name an unprivileged account",
        kind.setting, kind.account, kind.what));
    return;
  }
  if (!config.gsi.process_per_session) {
    out.problems.push_back(fmt::format(
        "{} run as {} only in a process per session: set [gsi] process_per_session = true "
        "(drop -no-fork and -debug), or start gridftpd as an unprivileged user",
        kind.what, kind.account));
  }
}

}  // namespace

AccountLookup system_accounts() {
  return {[](std::string_view name) -> std::optional<uid_t> {
    const std::string owned(name);
    const auto* entry = ::getpwnam(owned.c_str());
    if (entry == nullptr) return std::nullopt;
    return entry->pw_uid;
  }};
}

SessionAccountCheck check_session_accounts(const ServerConfig& config, bool as_root,
                                           std::string_view own_account,
                                           const AccountLookup& accounts) {
  SessionAccountCheck out;
  std::vector<SessionKind> kinds;
  if (config.anonymous.enabled) {
    kinds.push_back({"anonymous sessions", "[anonymous] account", ", or -anonymous-user NAME",
                     config.anonymous.account});
  }
  if (!config.accounts.password_file.empty()) {
    kinds.push_back(
        {"local password-file users' sessions", "[accounts] account", "", config.accounts.account});
  }
  for (const auto& kind : kinds) {
    if (as_root) {
      check_as_root(kind, config, accounts, out);
    } else if (!kind.account.empty() && kind.account != own_account) {
      out.notes.push_back(fmt::format(
          "{} run as {}, the server's own account: only a server started as root can run them "
          "as {} ({})",
          kind.what, own_account, kind.account, kind.setting));
    }
  }
  if (as_root && config.gsi.enabled && !config.gsi.process_per_session) {
    out.problems.emplace_back(
        "GSI sessions would run as root in the server's own process, with only gridftpd's path "
        "checks between them and the whole file system: set [gsi] process_per_session = true "
        "(drop -no-fork and -debug), or start gridftpd as an unprivileged user");
  }
  return out;
}

}  // namespace gridftp::server
