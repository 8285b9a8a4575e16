// Start-up steps main() runs before serving: reading config files and the password file,
// applying globus-gridftp-server style options, and creating missing roots. Errors are messages
// for the operator; main prints them and exits non-zero.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "server/auth/password_file.hpp"
#include "server/config/server_config.hpp"

namespace gridftp::server {

// Reads and parses a TOML file; problems name the key and line.
ConfigLoad load_config_file(const std::filesystem::path& path);

// -restrict-paths as globus-gridftp-server takes it: comma-separated paths, each optionally
// prefixed R (read), W or RW (read-write), N (none). The first readable path becomes the
// anonymous root; RW paths inside it become writable areas. Returns problems, if any.
std::vector<std::string> apply_restrict_paths(const std::string& spec, AnonymousConfig& anonymous);

// Loads local accounts from accounts.password_file (none when unset).
std::vector<std::string> load_accounts(const AccountsConfig& config,
                                       std::vector<auth::Account>& accounts);

// Creates the anonymous root and its writable areas when server.create_missing_roots is set.
std::vector<std::string> prepare_roots(const ServerConfig& config);

}  // namespace gridftp::server
