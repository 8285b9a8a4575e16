#include "server/config/globus_settings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "server/config/globus_environment.hpp"

namespace gridftp::server::globus {
namespace {

struct Rule {
  std::string_view key;
  Support support;
  std::string_view why;
  // A value that asks for nothing gridftpd does not already do (a flag left at Globus's
  // default, "file" for -dsi): accepted without a word, whatever `support` says.
  std::string_view quiet_value = {};
};

constexpr std::string_view kNoIpc =
    "ignored: a frontend reaches its movers over mutually authenticated TLS with the host "
    "certificate ([striping] frontends on the mover), not over Globus's IPC channel";
constexpr std::string_view kNoStripes =
    "ignored: a striped transfer has one stripe per mover (SPAS) or per address the client "
    "gives (SPOR), Blocked in the block size the client's OPTS RETR names (default 1 MiB)";
constexpr std::string_view kNoSharing =
    "ignored: Globus sharing is off in gridftpd (-sharing-dn is refused)";
constexpr std::string_view kNoXio =
    "ignored: gridftpd loads no XIO drivers; its data channel is TCP (TLS on DCAU/PROT), or "
    "UDPX by SETNETSTACK";

// Every option of option_table() has a row (a unit test checks): how gridftpd takes it.
constexpr std::array kRules = std::to_array<Rule>({
    // Informational
    {"help", Support::Applied, "this help"},
    {"longhelp", Support::Applied, "this help"},
    {"version", Support::Applied, "print the version"},
    {"versions", Support::Applied, "print the version"},
    // Modes of operation
    {"inetd", Support::Applied,
     "serve the one connection on stdin (inetd, xinetd, systemd sockets); logs go to -l only"},
    {"daemon", Support::NoOp,
     "serving a listening port is already the mode (not -i); it stays in the foreground unless -S"},
    {"detach", Support::Applied, "run in the background once listening"},
    {"ssh", Support::Refused,
     "sshftp:// (a control channel over ssh, login left to sshd) is not supported: use "
     "gsiftp:// or ftps://",
     "0"},
    {"exec", Support::Warned, "ignored: gridftpd starts session processes from its own executable"},
    {"chdir", Support::Warned,
     "ignored: gridftpd keeps the directory it was started in (sessions start in their home, "
     "-home-dir)",
     "0"},
    {"chdir_to", Support::Warned,
     "ignored: gridftpd keeps the directory it was started in (sessions start in their home, "
     "-home-dir)"},
    {"threads", Support::Applied, "I/O threads"},
    {"fork", Support::Applied,
     "as root with GSI, a process per session as the mapped account; -no-fork: one process"},
    {"single", Support::Refused,
     "gridftpd serves until stopped: use -i (inetd) to serve one connection", "0"},
    {"chroot_path", Support::Refused,
     "gridftpd does not chroot: use the account's root ([gsi] root) or [anonymous] root, or "
     "-rp to confine sessions"},
    // Authentication, authorization and security
    {"auth_level", Support::Applied,
     "1 and 2 are what gridftpd always does (gridmap identity; file access as the mapped "
     "account); 0 (no checks) and 4 (no setuid) are refused"},
    {"process_user", Support::Refused,
     "gridftpd runs each session as its gridmap or password-file account: map every DN to one "
     "account in the grid-mapfile instead"},
    {"process_group", Support::Refused,
     "gridftpd runs each session with its account's own groups: give the account that primary "
     "group instead"},
    {"ipc_allow_from", Support::Warned, kNoIpc},
    {"ipc_deny_from", Support::Warned, kNoIpc},
    {"allow_from", Support::Refused,
     "gridftpd does not filter clients by address: use a firewall rule (nftables, iptables) or "
     "systemd's IPAddressAllow=/IPAddressDeny= on the service"},
    {"deny_from", Support::Refused,
     "gridftpd does not filter clients by address: use a firewall rule (nftables, iptables) or "
     "systemd's IPAddressAllow=/IPAddressDeny= on the service"},
    {"encrypt_data", Support::Refused,
     "gridftpd cannot refuse clear data channels: clients ask for encryption with PROT P "
     "(globus-url-copy -dcpriv)",
     "0"},
    {"secure_ipc", Support::Warned, kNoIpc, "1"},
    {"ipc_auth_mode", Support::Warned, kNoIpc},
    {"allow_anonymous", Support::Applied, "anonymous logins ([anonymous] enabled)"},
    {"anonymous_names_allowed", Support::Refused,
     "gridftpd takes the names anonymous and ftp, as Globus does by default; no other list",
     "anonymous,ftp"},
    {"anonymous_user", Support::Applied,
     "account anonymous sessions run as; as root each session becomes it after login"},
    {"anonymous_group", Support::Refused,
     "anonymous sessions run with -anonymous-user's own groups: give that account the primary "
     "group instead"},
    {"sharing_dn", Support::Refused, "Globus sharing is not supported"},
    {"sharing_state_dir", Support::Warned, kNoSharing},
    {"sharing_control", Support::Warned, kNoSharing, "0"},
    {"sharing_rp", Support::Warned, kNoSharing},
    {"sharing_users_allow", Support::Warned, kNoSharing},
    {"sharing_users_deny", Support::Warned, kNoSharing},
    {"sharing_groups_allow", Support::Warned, kNoSharing},
    {"sharing_groups_deny", Support::Warned, kNoSharing},
    {"allow_root", Support::Refused,
     "gridftpd never serves a client as root; map it to an ordinary account", "0"},
    {"allow_disabled_login", Support::NoOp,
     "gridftpd does not look at whether an account is disabled (its shell or password "
     "state); the gridmap or password file decides"},
    {"pw_file", Support::Refused,
     "Globus password files differ: use [accounts] password_file with gridftpd --hash-password"},
    {"connections_max", Support::Applied, "sessions at once; more get 421"},
    {"connections_disabled", Support::Refused,
     "gridftpd has no offline mode answering 422: stop the service instead", "0"},
    {"offline_msg", Support::Warned,
     "ignored: gridftpd has no offline mode (-connections-disabled is refused)"},
    {"disable_command_list", Support::Applied,
     "comma-separated commands answered 500 as if unknown ([server] disabled_commands)"},
    {"cas", Support::Warned,
     "ignored: gridftpd authorizes by the grid-mapfile only and loads no authorization "
     "callouts (GSI_AUTHZ_CONF)",
     "0"},
    {"use_home_dirs", Support::Applied, "users start in their home directory ([server])"},
    {"home_dir", Support::Applied, "one starting directory for every user ([server])"},
    {"restrict_paths", Support::Applied,
     "R/W/N trees a session may touch; paths stay absolute ([server] restrict_paths)"},
    {"rp_follow_symlinks", Support::Refused,
     "gridftpd always judges a link by where it leads, so a link cannot open a restricted tree",
     "0"},
    {"acl", Support::Refused,
     "gridftpd loads no ACL or event modules: use -rp (restrict_paths) for access rules"},
    // Logging
    {"log_level", Support::Applied, "log level (names or Globus's numbers)"},
    {"log_module", Support::Applied,
     "stdio: the -l file or stderr (buffer and interval ignored); syslog: accepted with a "
     "warning, gridftpd logs to -l or stderr (the journal under systemd)"},
    {"log_single", Support::Applied, "server log file"},
    {"log_unique", Support::Warned,
     "gridftpd writes one server log, not one per session: DIRgridftp.log unless -l names one"},
    {"log_transfer", Support::Applied,
     "transfer log file (Globus's NetLogger lines; [logging] transfer_log_format)"},
    {"log_filemode", Support::Warned,
     "ignored: log files are created with mode 0666 less the umask (set UMask= in the service)"},
    {"disable_usage_stats", Support::NoOp, "gridftpd sends no usage statistics"},
    {"usage_stats_target", Support::NoOp, "gridftpd sends no usage statistics"},
    {"usage_stats_id", Support::NoOp, "gridftpd sends no usage statistics"},
    // Striped and remote data nodes
    {"remote_nodes", Support::Applied,
     "[striping] movers: this server is their frontend (the movers are gridftpd -dn, reached over "
     "TLS, docs/STRIPING.md)"},
    {"hybrid", Support::Applied,
     "[striping] hybrid: the frontend moves unstriped transfers (PASV, PORT) itself instead of "
     "handing each session to a mover",
     "0"},
    {"data_node", Support::Applied,
     "[striping] mover: -p is the port a frontend reaches over mutually authenticated TLS"},
    {"stripe_blocksize", Support::Warned, kNoStripes},
    {"stripe_count", Support::Warned, kNoStripes},
    {"stripe_layout", Support::Warned, kNoStripes},
    {"stripe_blocksize_locked", Support::Warned, kNoStripes, "0"},
    {"stripe_layout_locked", Support::Warned, kNoStripes, "0"},
    // Disk
    {"blocksize", Support::Applied,
     "MODE E block size sent and file read unit ([storage] block_bytes; 4 KiB to 64 MiB)"},
    {"sync_writes", Support::Applied,
     "[storage] durable: each 111 names only synced bytes, and the final 226 waits until the "
     "file and its name are on stable storage"},
    {"perms", Support::Applied,
     "0644 only: gridftpd creates files 0644 less the umask, Globus's default; other modes are "
     "refused"},
    {"file_timeout", Support::Warned,
     "ignored: gridftpd has no disk-access timeout; a stalled transfer ends by [timeouts] "
     "data_seconds"},
    // Network
    {"port", Support::Applied, "control port"},
    {"control_interface", Support::Applied, "control listening address"},
    {"data_interface", Support::Applied, "address for data connections and PASV/EPSV replies"},
    {"ipc_interface", Support::Warned, kNoIpc},
    {"hostname", Support::Applied, "address announced in PASV/EPSV replies"},
    {"ipc_port", Support::Warned, kNoIpc},
    {"control_preauth_timeout", Support::Applied, "seconds allowed for login"},
    {"control_idle_timeout", Support::Applied, "seconds an idle session is kept"},
    {"ipc_idle_timeout", Support::Warned, kNoIpc},
    {"ipc_connect_timeout", Support::Warned, kNoIpc},
    {"allow_udt", Support::NoOp, "UDT is refused with advice to use -dcstack udpx"},
    {"port_range", Support::Applied, "passive data ports MIN,MAX"},
    {"epsv_ip", Support::Warned, "ignored: EPSV replies carry only the port, as RFC 2428 says",
     "0"},
    {"epsv_match", Support::NoOp,
     "EPSV already listens with the data address's protocol (-data-interface, else the control "
     "connection's)"},
    // User messages
    {"banner", Support::Applied, "220 greeting text"},
    {"banner_file", Support::Applied,
     "220 greeting read from the file (one reply line a line); an unreadable file is an error"},
    {"banner_terse", Support::Warned,
     "ignored: gridftpd's greeting (\"gridftpd ready.\", or -banner) names no version", "0"},
    {"banner_append", Support::Warned, "ignored: -banner/-banner-file replace gridftpd's greeting",
     "0"},
    {"version_tag", Support::Warned, "ignored: gridftpd's greeting names no version to tag"},
    {"login_msg", Support::Applied, "text added to the 230 reply ([server] login_message)"},
    {"login_msg_file", Support::Applied,
     "text of the file added to the 230 reply ([server] login_message); an unreadable file is "
     "an error"},
    // Modules
    {"dsi", Support::Refused, "gridftpd serves the POSIX file system only (-dsi file)", "file"},
    {"allowed_modules", Support::Warned,
     "ignored: gridftpd has no ERET/ESTO modules, so none can be allowed"},
    {"dc_whitelist", Support::Warned, kNoXio},
    {"fs_whitelist", Support::Warned, kNoXio},
    {"popen_whitelist", Support::Warned, kNoXio},
    {"xnetmgr", Support::Refused,
     "the XIO network manager is not supported; gridftpd's data channel stack is fixed"},
    {"dc_default", Support::Refused,
     "gridftpd's data channel stack is fixed (TCP, TLS on DCAU/PROT); clients choose UDPX with "
     "SETNETSTACK (gridcp -dcstack udpx)"},
    {"fs_default", Support::Refused, "gridftpd's disk stack is fixed: the POSIX file system"},
    // Other
    {"configfile", Support::Applied, "config file, Globus format or gridftpd TOML"},
    {"config_dir", Support::Applied, "directory of Globus-format config files"},
    {"config_base_path", Support::Refused,
     "gridftpd takes relative paths from the directory it was started in: give full paths"},
    {"debug", Support::Applied,
     "no process per session (as -no-fork), logging unchanged; as root, refused where sessions "
     "would stay root"},
    {"pidfile", Support::Applied, "file that gets the server's PID once listening"},
});

const Rule* rule_for(std::string_view key) {
  const auto found =
      std::find_if(kRules.begin(), kRules.end(), [&](const Rule& r) { return r.key == key; });
  return found == kRules.end() ? nullptr : &*found;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> level_for_number(std::uint64_t n) {
  if (n >= 16) return "trace";  // DUMP, ALL
  if (n >= 4) return "info";    // TRANSFER, INFO
  if (n >= 2) return "warn";
  if (n >= 1) return "error";
  return "off";
}

template <typename T>
bool read_number(const Setting& s, T& out, std::uint64_t low, std::uint64_t high,
                 std::vector<std::string>& problems) {
  const auto value = parse_globus_number(s.value);
  if (!value || *value < low || *value > high) {
    problems.push_back(fmt::format("{} ({}): '{}' must be a number from {} to {}", s.key, s.origin,
                                   s.value, low, high));
    return false;
  }
  out = static_cast<T>(*value);
  return true;
}

struct Outcome {
  std::vector<std::string>& problems;
  std::vector<std::string>& warnings;
  const TextFileReader& read_text;
};

// A message file's text (banner_file, login_msg_file), or a problem naming the option.
std::optional<std::string> read_message_file(const Setting& s, const Outcome& out) {
  std::string why;
  auto text = out.read_text(s.value, why);
  if (!text) out.problems.push_back(fmt::format("{} ({}): {}", s.key, s.origin, why));
  return text;
}

// Globus's -log-module: `stdio` or `syslog`, each with optional `:name=value` options.
void apply_log_module(const Setting& s, const Outcome& out) {
  const auto module = std::string_view(s.value).substr(0, s.value.find(':'));
  if (module == "stdio") return;
  if (module == "syslog") {
    out.warnings.push_back(fmt::format(
        "log_module ({}): syslog is not supported; gridftpd logs to -l FILE, or to stderr (the "
        "journal under systemd)",
        s.origin));
    return;
  }
  out.problems.push_back(
      fmt::format("log_module ({}): '{}' is not a log module; Globus's are stdio and syslog",
                  s.origin, s.value));
}

// Globus's -auth-level, a sum of 1 (identity), 2 (file access), 4 (no setuid); 0 is none.
void apply_auth_level(const Setting& s, const Outcome& out) {
  const auto level = parse_globus_number(s.value);
  if (!level || *level > 7) {
    out.problems.push_back(
        fmt::format("auth_level ({}): '{}' must be a sum of 1, 2 and 4", s.origin, s.value));
  } else if (*level == 0) {
    out.problems.push_back(fmt::format(
        "auth_level ({}): 0 (no authorization checks) is not supported: every login is checked "
        "against the grid-mapfile or password file",
        s.origin));
  } else if ((*level & 4) != 0) {
    out.problems.push_back(fmt::format(
        "auth_level ({}): {} includes 4 (no setuid), which is not supported: as root gridftpd "
        "always runs a session as its account; start gridftpd as that account instead",
        s.origin, *level));
  }
}

bool is_octal_mode(std::string_view text) {
  return !text.empty() && text.size() <= 4 &&
         std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '7'; });
}

// apply_one's groups: each applies `s` when its key is one of the group's and says whether it was.
bool apply_network(const Setting& s, ServerConfig& c, std::vector<std::string>& problems) {
  const auto& k = s.key;
  if (k == "port") {
    read_number(s, c.listen.port, 0, 65535, problems);
  } else if (k == "control_interface") {
    c.listen.control_interface = s.value;
  } else if (k == "data_interface" || k == "hostname") {
    c.listen.data_interface = s.value;
  } else if (k == "port_range") {
    const auto range = parse_port_range(s.value);
    if (!range) {
      problems.push_back(fmt::format("port_range ({}): '{}' is not MIN,MAX", s.origin, s.value));
      return true;
    }
    std::tie(c.listen.passive_port_min, c.listen.passive_port_max) = *range;
  } else if (k == "threads") {
    read_number(s, c.server.threads, 0, 1024, problems);
  } else if (k == "connections_max") {
    read_number(s, c.limits.max_sessions, 1, 1'000'000, problems);
  } else if (k == "control_idle_timeout") {
    read_number(s, c.timeouts.idle_seconds, 1, 1u << 30, problems);
  } else if (k == "control_preauth_timeout") {
    read_number(s, c.timeouts.login_seconds, 1, 1u << 30, problems);
  } else {
    return false;
  }
  return true;
}

bool apply_process(const Setting& s, ServerConfig& c, ProcessOptions& p) {
  const auto& k = s.key;
  const bool on = s.value == "1";
  if (k == "inetd") {
    p.inetd = on;
  } else if (k == "detach") {
    p.detach = on;
  } else if (k == "pidfile") {
    p.pidfile = s.value;
  } else if (k == "fork") {
    c.gsi.process_per_session = on;
  } else if (k == "debug") {
    if (on) c.gsi.process_per_session = false;
  } else if (k == "help" || k == "longhelp") {
    p.print_help = p.print_help || on;
  } else if (k == "version" || k == "versions") {
    p.print_version = p.print_version || on;
  } else if (k == "configfile") {
    p.config_file = s.value;
  } else if (k == "config_dir") {
    p.config_dir = s.value;
  } else {
    return false;
  }
  return true;
}

void apply_log_unique(const Setting& s, ServerConfig& c, const Outcome& out) {
  if (c.logging.server_log.empty()) {
    c.logging.server_log = s.value + "gridftp.log";
    out.warnings.push_back(
        fmt::format("log_unique ({}): gridftpd writes one server log, not one per session: {}",
                    s.origin, c.logging.server_log.string()));
  } else {
    out.warnings.push_back(
        fmt::format("log_unique ({}): ignored: gridftpd writes one server log, {}", s.origin,
                    c.logging.server_log.string()));
  }
}

bool apply_logging(const Setting& s, ServerConfig& c, const Outcome& out) {
  const auto& k = s.key;
  if (k == "log_level") {
    const auto level = log_level_from_globus(s.value);
    if (!level) {
      out.problems.push_back(fmt::format("log_level ({}): unknown level '{}'", s.origin, s.value));
      return true;
    }
    c.logging.level = *level;
  } else if (k == "log_single") {
    c.logging.server_log = s.value;
  } else if (k == "log_transfer") {
    c.logging.transfer_log = s.value;
  } else if (k == "log_module") {
    apply_log_module(s, out);
  } else if (k == "log_unique") {
    apply_log_unique(s, c, out);
  } else if (k == "log_filemode") {
    if (!is_octal_mode(s.value)) {
      out.problems.push_back(
          fmt::format("log_filemode ({}): '{}' is not an octal mode", s.origin, s.value));
    }
  } else {
    return false;
  }
  return true;
}

void apply_perms(const Setting& s, std::vector<std::string>& problems) {
  if (!is_octal_mode(s.value)) {
    problems.push_back(fmt::format("perms ({}): '{}' is not an octal mode", s.origin, s.value));
  } else if (std::stoul(s.value, nullptr, 8) != 0644) {
    problems.push_back(fmt::format(
        "perms ({}): {} is not supported: gridftpd creates files 0644 (less the umask), "
        "Globus's default; set the umask of the service to narrow it",
        s.origin, s.value));
  }
}

// "a,b,,c" -> {"a", "b", "c"}: Globus's comma-separated option values.
std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto comma = std::min(value.find(',', start), value.size());
    if (comma > start) items.emplace_back(value.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

void apply_disabled_commands(const Setting& s, ServerConfig& c) {
  c.server.disabled_commands.clear();
  for (const auto& verb : split_list(s.value)) c.server.disabled_commands.push_back(upper(verb));
}

void apply_one(const Setting& s, ServerConfig& c, ProcessOptions& p, const Outcome& out) {
  if (apply_network(s, c, out.problems) || apply_process(s, c, p) || apply_logging(s, c, out)) {
    return;
  }
  const auto& k = s.key;
  const bool on = s.value == "1";
  if (k == "allow_anonymous") {
    c.anonymous.enabled = on;
    p.anonymous_by_globus = on;
  } else if (k == "anonymous_user") {
    c.anonymous.account = s.value;
  } else if (k == "restrict_paths") {
    c.server.restrict_paths = s.value;
  } else if (k == "disable_command_list") {
    apply_disabled_commands(s, c);
  } else if (k == "use_home_dirs") {
    c.server.use_home_dirs = on;
  } else if (k == "home_dir") {
    c.server.home_dir = s.value;
  } else if (k == "banner") {
    c.server.banner = s.value;
  } else if (k == "blocksize") {
    read_number(s, c.storage.block_bytes, 4096, 64U << 20, out.problems);
  } else if (k == "sync_writes") {
    c.storage.durable = on;
  } else if (k == "remote_nodes") {
    c.striping.movers = split_list(s.value);
  } else if (k == "data_node") {
    c.striping.mover = on;
  } else if (k == "hybrid") {
    c.striping.hybrid = on;
  } else if (k == "banner_file") {
    if (auto text = read_message_file(s, out)) c.server.banner = std::move(*text);
  } else if (k == "login_msg") {
    c.server.login_message = s.value;
  } else if (k == "login_msg_file") {
    if (auto text = read_message_file(s, out)) c.server.login_message = std::move(*text);
  } else if (k == "auth_level") {
    apply_auth_level(s, out);
  } else if (k == "perms") {
    apply_perms(s, out.problems);
  }
}

}  // namespace

std::optional<OptionSupport> support_for(std::string_view key) {
  if (const auto* rule = rule_for(key)) return OptionSupport{rule->support, rule->why};
  return std::nullopt;
}

TextFileReader real_text_files() {
  return [](const std::string& path, std::string& why) -> std::optional<std::string> {
    constexpr std::size_t kMaxBytes = std::size_t{64} * 1024;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      why = fmt::format("cannot read {}: {}", path, std::strerror(errno));
      return std::nullopt;
    }
    std::string text(kMaxBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) {
      why = fmt::format("cannot read {}", path);
      return std::nullopt;
    }
    if (text.size() > kMaxBytes) {
      why = fmt::format("{} is larger than {} bytes", path, kMaxBytes);
      return std::nullopt;
    }
    return text;
  };
}

std::optional<std::string> log_level_from_globus(std::string_view value) {
  static const std::map<std::string, std::string, std::less<>> kNative{
      {"trace", "trace"}, {"debug", "debug"},       {"info", "info"}, {"warn", "warn"},
      {"error", "error"}, {"critical", "critical"}, {"off", "off"}};
  if (const auto native = kNative.find(value); native != kNative.end()) return native->second;
  if (const auto number = parse_globus_number(value)) return level_for_number(*number);
  // A comma-separated list of Globus names: the most verbose one decides.
  static const std::map<std::string, std::uint64_t, std::less<>> kNames{
      {"ERROR", 1}, {"WARN", 2}, {"TRANSFER", 4}, {"INFO", 8}, {"DUMP", 16}, {"ALL", 255}};
  std::uint64_t most = 0;
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto comma = std::min(value.find(',', start), value.size());
    const auto name = upper(value.substr(start, comma - start));
    const auto found = kNames.find(name);
    if (found == kNames.end()) return std::nullopt;
    most = std::max(most, found->second);
    start = comma + 1;
  }
  return level_for_number(most);
}

std::vector<std::string> apply_globus_settings(std::span<const Setting> settings,
                                               ServerConfig& config, ProcessOptions& process,
                                               std::vector<std::string>& warnings,
                                               const TextFileReader& read_text) {
  std::vector<std::string> problems;
  const Outcome out{problems, warnings, read_text};
  for (const auto& setting : settings) {
    const auto* rule = rule_for(setting.key);
    if (rule == nullptr) {
      // The parsers only produce keys of option_table(), each of which has a rule.
      problems.push_back(
          fmt::format("{} ({}): not a globus-gridftp-server option", setting.key, setting.origin));
      continue;
    }
    if (!rule->quiet_value.empty() && setting.value == rule->quiet_value) continue;
    if (rule->support == Support::Refused) {
      problems.push_back(fmt::format("{} ({}): {}", setting.key, setting.origin, rule->why));
      continue;
    }
    const auto warned_before = warnings.size();
    apply_one(setting, config, process, out);
    // A warned option whose value apply_one checked without a word of its own (log_unique
    // writes its own) gets the rule's text.
    if (rule->support == Support::Warned && warnings.size() == warned_before)
      warnings.push_back(fmt::format("{} ({}): {}", setting.key, setting.origin, rule->why));
  }
  return problems;
}

std::vector<std::string> apply_globus_settings(std::span<const Setting> settings,
                                               ServerConfig& config, ProcessOptions& process) {
  std::vector<std::string> warnings;
  return apply_globus_settings(settings, config, process, warnings);
}

std::string describe_globus_support() {
  std::string taken, noop, warned, refused;
  for (const auto& spec : option_table()) {
    const auto support = support_for(spec.key).value_or(OptionSupport{Support::Refused, "no rule"});
    std::string spelling = spec.long_flag.empty() ? "" : "-" + std::string(spec.long_flag);
    if (!spec.short_flag.empty())
      spelling += (spelling.empty() ? "-" : ", -") + std::string(spec.short_flag);
    const auto line = fmt::format("  {:<34} {}\n", spelling, support.why);
    (support.support == Support::Applied  ? taken
     : support.support == Support::NoOp   ? noop
     : support.support == Support::Warned ? warned
                                          : refused) += line;
  }
  return "globus-gridftp-server options gridftpd takes, with Globus's meaning:\n" + taken +
         "Accepted, with nothing to do:\n" + noop +
         "Accepted with a warning saying what gridftpd does instead:\n" + warned +
         "Refused at start-up, with the reason:\n" + refused;
}

}  // namespace gridftp::server::globus
