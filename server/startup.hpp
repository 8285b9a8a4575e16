// Start-up steps main() runs before serving: reading config files (TOML and Globus's format) and
// the password file, and creating missing roots. Errors are messages
// for the operator; main prints them and exits non-zero.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/auth/password_file.hpp"
#include "server/config/globus_options.hpp"
#include "server/config/server_config.hpp"

namespace gridftp::server {

// Reads and parses a TOML file; problems name the key and line.
ConfigLoad load_config_file(const std::filesystem::path& path);

// The config before the command line: the -c file if it is gridftpd TOML; else Globus's defaults
// when the start is Globus-style (a Globus-format -c file, a -C directory, or `globus_start`: a
// Globus option on the command line or Globus's variables in the environment), else the built-in
// demo config (docs/GLOBUS.md §7); then, lowest first, the Globus-format files of the -C directory
// (alphabetical) and a Globus-format -c file, as settings with their `$NAME value` environment
// lines (docs/GLOBUS.md §2). Problems name the file and line.
struct StartupLayers {
  ServerConfig config;
  std::vector<globus::Setting> settings;
  std::vector<std::pair<std::string, std::string>> environment;
  std::string format;  // "gridftpd TOML", "Globus" or "built-in"
  std::vector<std::string> problems;
};
StartupLayers load_startup_layers(const std::optional<std::string>& config_file,
                                  const std::optional<std::string>& config_dir, bool globus_start);

// Loads local accounts from accounts.password_file (none when unset).
std::vector<std::string> load_accounts(const AccountsConfig& config,
                                       std::vector<auth::Account>& accounts);

// A data interface given as a host name (GLOBUS_HOSTNAME, -hostname) becomes its first address.
std::vector<std::string> resolve_data_interface(ServerConfig& config);

// Creates the anonymous root and its writable areas when server.create_missing_roots is set; run
// as root, writable areas it creates, or that root owns, are given to the anonymous account,
// which sessions run as.
std::vector<std::string> prepare_roots(const ServerConfig& config);

}  // namespace gridftp::server
