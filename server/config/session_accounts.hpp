// Which system account each kind of session runs as, checked at start-up (and on SIGHUP): a
// server started as root never serves a session as root, where only gridftpd's own path checks
// would stand between a client and the whole file system. Anonymous sessions run as
// [anonymous] account (Globus's -anonymous-user), local password-file users as [accounts]
// account (vsftpd's guest_username), GSI users as their gridmap account; each in a process of its
// own that becomes that account after login (docs/GLOBUS.md §7). Pure: accounts come in through
// a lookup.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "server/config/server_config.hpp"

namespace gridftp::server {

struct AccountLookup {
  // The uid of a system account; nullopt when there is no such account.
  std::function<std::optional<uid_t>(std::string_view name)> uid_of;
};

// The system's accounts (getpwnam).
AccountLookup system_accounts();

struct SessionAccountCheck {
  std::vector<std::string> problems;  // start-up refused; each names the fix
  std::vector<std::string> notes;     // worth logging, not refused
};

// `as_root`: the server runs with effective uid 0. `own_account`: the name of the account it
// runs as.
SessionAccountCheck check_session_accounts(const ServerConfig& config, bool as_root,
                                           std::string_view own_account,
                                           const AccountLookup& accounts);

}  // namespace gridftp::server
