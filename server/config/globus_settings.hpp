// What each globus-gridftp-server option does in gridftpd (docs/GLOBUS.md §5): applied to the
// config with Globus's meaning, accepted as a no-op where gridftpd already behaves that way,
// accepted with a warning saying what gridftpd does instead, or refused by name with the reason.
// Settings come from server/config/globus_options (command line and Globus-format config files),
// lowest precedence first. Pure.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/config/globus_options.hpp"
#include "server/config/server_config.hpp"

namespace gridftp::server::globus {

// Options about the process rather than the service, for main() to act on.
struct ProcessOptions {
  bool detach = false;                     // -S: run in the background once listening
  std::optional<std::string> pidfile;      // -pidfile: written once listening (after -S)
  bool inetd = false;                      // -i: serve one connection on stdin
  bool print_version = false;              // -v / -version / -versions
  bool print_help = false;                 // -h / -help / -longhelp
  std::optional<std::string> config_file;  // -c
  std::optional<std::string> config_dir;   // -C
  // -aa: anonymous users see the file system as Globus shows it, unless a TOML config gave
  // them a root of their own.
  bool anonymous_by_globus = false;
};

// Applied: Globus's meaning. NoOp: gridftpd already behaves so. Warned: harmless, ignored with a
// warning saying what gridftpd does instead. Refused: stops the start-up, with the reason.
enum class Support { Applied, NoOp, Warned, Refused };

struct OptionSupport {
  Support support = Support::Refused;
  std::string_view why;  // what it does here, or why it is refused
};

// How gridftpd takes the option with config key `key`: its explicit rule (every option of
// option_table() has one), nullopt for a key that names no Globus option.
std::optional<OptionSupport> support_for(std::string_view key);

// Globus's -d / log_level: a name list ("ERROR,WARN,INFO"), a number (a level and those below
// it: 1 ERROR, 2 WARN, 4 TRANSFER, 8 INFO, 16 DUMP, 255 ALL) or one of spdlog's level names.
std::optional<std::string> log_level_from_globus(std::string_view value);

// A text file's contents (banner_file, login_msg_file), or nullopt with the reason in `why`.
using TextFileReader =
    std::function<std::optional<std::string>(const std::string& path, std::string& why)>;
// Reads the real file system; files over 64 KiB are refused.
TextFileReader real_text_files();

// Applies `settings` in order (later wins). Problems name the option, where it came from and
// why: a refused option, a value gridftpd cannot use. `warnings` gets one line per option taken
// with a different meaning or ignored ("cas (command line): ignored: ..."), for the log.
std::vector<std::string> apply_globus_settings(std::span<const Setting> settings,
                                               ServerConfig& config, ProcessOptions& process,
                                               std::vector<std::string>& warnings,
                                               const TextFileReader& read_text = real_text_files());
// The same, warnings dropped.
std::vector<std::string> apply_globus_settings(std::span<const Setting> settings,
                                               ServerConfig& config, ProcessOptions& process);

// --help's list: every option gridftpd takes, and every one it refuses, with the reason.
std::string describe_globus_support();

}  // namespace gridftp::server::globus
