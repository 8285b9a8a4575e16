// Start-up steps main() runs before serving: reading config files (TOML and Globus's format) and
// the password file, assembling the config from every layer (at start-up and on SIGHUP), loading
// the GSI and FTPS contexts, creating missing roots, and opening the listeners. Errors are
// messages for the operator; main prints or logs them and exits non-zero.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "security/openssl_ptr.hpp"
#include "server/auth/gsi_context.hpp"
#include "server/auth/password_file.hpp"
#include "server/config/globus_options.hpp"
#include "server/config/globus_settings.hpp"
#include "server/config/server_config.hpp"
#include "server/server.hpp"

namespace spdlog {
class logger;
}

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

struct AssembledConfig {
  ServerConfig config;
  std::vector<std::string> problems;  // empty when the config may be used
  std::vector<std::string> warnings;  // Globus options taken with a difference worth saying
};

// The config from every layer, in Globus's order: the embedded defaults or the config file (and
// -C directory, whose `$NAME value` lines set the environment), then the command line, then the
// environment (X509_*, GRIDMAP, GLOBUS_TCP_*); checked. `process` gains what the files and the
// command line set (-inetd, -pidfile, ...); `notes` what is worth logging once serving. Start-up
// and SIGHUP both call it.
AssembledConfig assemble_config(const std::vector<globus::Setting>& command_line,
                                globus::ProcessOptions& process, std::vector<std::string>& notes);

// What a SIGHUP read again, from the same command line, files and environment as at start-up:
// the whole config, the password file's accounts and, with GSI on at start-up, the gridmap. The
// reload is to be applied only when `problems` is empty.
struct ReloadAssembly {
  Server::Reload reload;
  std::vector<std::string> problems;
  std::vector<std::string> warnings;
};
// `process_before_config` is the process options as the command line alone left them.
ReloadAssembly assemble_reload(const std::vector<globus::Setting>& command_line,
                               globus::ProcessOptions process_before_config, bool gsi_enabled);

// The security contexts the Server takes, each loaded once at start-up.
struct SecurityContexts {
  std::shared_ptr<const auth::GsiContext> gsi;  // null unless gsi.enabled
  security::SslCtxPtr ftps;                     // null unless tls.enabled
};
// Loads the GSI context (gsi.enabled), then the FTPS one (tls.enabled). nullopt, with `problem`
// saying why, when one cannot be loaded.
std::optional<SecurityContexts> load_security_contexts(const ServerConfig& config,
                                                       std::string& problem);

// The daemon's listeners, in this order: the metrics endpoint ([metrics]), the control listener,
// then the pid file (when `pidfile` is given), so that the pid file names a server that listens.
// Logs each address, and a failure as critical; false on a failure.
bool start_listening(Server& server, const ServerConfig& config,
                     const std::optional<std::string>& pidfile, spdlog::logger& log);

}  // namespace gridftp::server
