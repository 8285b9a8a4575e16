#include "server/config/globus_settings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "server/config/globus_environment.hpp"

namespace gridftp::server::globus {
namespace {

struct Rule {
  std::string_view key;
  Support support;
  std::string_view why;
};

// Options absent here are refused as "not supported by gridftpd".
constexpr std::array kRules = std::to_array<Rule>({
    {"port", Support::Applied, "control port"},
    {"control_interface", Support::Applied, "control listening address"},
    {"data_interface", Support::Applied, "address for data connections and PASV/EPSV replies"},
    {"hostname", Support::Applied, "address announced in PASV/EPSV replies"},
    {"port_range", Support::Applied, "passive data ports MIN,MAX"},
    {"allow_anonymous", Support::Applied, "anonymous logins ([anonymous] enabled)"},
    {"anonymous_user", Support::Applied,
     "account anonymous sessions run as; as root each session becomes it after login"},
    {"threads", Support::Applied, "I/O threads"},
    {"connections_max", Support::Applied, "sessions at once; more get 421"},
    {"log_level", Support::Applied, "log level (names or Globus's numbers)"},
    {"log_single", Support::Applied, "server log file"},
    {"log_transfer", Support::Applied, "transfer log file (one JSON object per transfer)"},
    {"banner", Support::Applied, "220 greeting text"},
    {"use_home_dirs", Support::Applied, "users start in their home directory ([server])"},
    {"home_dir", Support::Applied, "one starting directory for every user ([server])"},
    {"disable_command_list", Support::Applied,
     "comma-separated commands answered 500 as if unknown ([server] disabled_commands)"},
    {"control_idle_timeout", Support::Applied, "seconds an idle session is kept"},
    {"control_preauth_timeout", Support::Applied, "seconds allowed for login"},
    {"detach", Support::Applied, "run in the background once listening"},
    {"pidfile", Support::Applied, "file that gets the server's PID once listening"},
    {"fork", Support::Applied,
     "as root with GSI, a process per session as the mapped account; -no-fork: one process"},
    {"debug", Support::Applied, "one process, logging to stderr"},
    {"help", Support::Applied, "this help"},
    {"longhelp", Support::Applied, "this help"},
    {"version", Support::Applied, "print the version"},
    {"versions", Support::Applied, "print the version"},
    {"configfile", Support::Applied, "config file, Globus format or gridftpd TOML"},
    {"config_dir", Support::Applied, "directory of Globus-format config files"},
    {"daemon", Support::NoOp, "gridftpd always runs as a daemon"},
    {"disable_usage_stats", Support::NoOp, "gridftpd sends no usage statistics"},
    {"usage_stats_target", Support::NoOp, "gridftpd sends no usage statistics"},
    {"usage_stats_id", Support::NoOp, "gridftpd sends no usage statistics"},
    {"allow_udt", Support::NoOp, "UDT is refused with advice to use -dcstack udpx"},
    {"inetd", Support::Applied,
     "serve the one connection on stdin (inetd, xinetd, systemd sockets); logs go to -l only"},
    {"single", Support::Refused, "gridftpd serves until stopped"},
    {"restrict_paths", Support::Applied,
     "R/W/N trees a session may touch; paths stay absolute ([server] restrict_paths)"},
    {"rp_follow_symlinks", Support::Refused,
     "gridftpd always judges a link by where it leads, so a link cannot open a restricted tree"},
    {"pw_file", Support::Refused,
     "Globus password files differ: use [accounts] password_file with gridftpd --hash-password"},
    {"remote_nodes", Support::Refused, "gridftpd has no separate data nodes (striping)"},
    {"data_node", Support::Refused, "gridftpd has no separate data nodes (striping)"},
    {"hybrid", Support::Refused, "gridftpd has no separate data nodes (striping)"},
    {"chroot_path", Support::Refused, "use the account's root or [anonymous] root"},
    {"dsi", Support::Refused, "gridftpd serves the POSIX file system only"},
    {"sharing_dn", Support::Refused, "Globus sharing is not supported"},
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

void apply_one(const Setting& s, ServerConfig& c, ProcessOptions& p,
               std::vector<std::string>& problems) {
  const auto& k = s.key;
  const bool on = s.value == "1";
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
      return;
    }
    std::tie(c.listen.passive_port_min, c.listen.passive_port_max) = *range;
  } else if (k == "allow_anonymous") {
    c.anonymous.enabled = on;
    p.anonymous_by_globus = on;
  } else if (k == "anonymous_user") {
    c.anonymous.account = s.value;
  } else if (k == "threads") {
    read_number(s, c.server.threads, 0, 1024, problems);
  } else if (k == "connections_max") {
    read_number(s, c.limits.max_sessions, 1, 1'000'000, problems);
  } else if (k == "log_level") {
    const auto level = log_level_from_globus(s.value);
    if (!level) {
      problems.push_back(fmt::format("log_level ({}): unknown level '{}'", s.origin, s.value));
      return;
    }
    c.logging.level = *level;
  } else if (k == "log_single") {
    c.logging.server_log = s.value;
  } else if (k == "log_transfer") {
    c.logging.transfer_log = s.value;
  } else if (k == "restrict_paths") {
    c.server.restrict_paths = s.value;
  } else if (k == "disable_command_list") {
    c.server.disabled_commands.clear();
    std::size_t start = 0;
    while (start <= s.value.size()) {
      const auto comma = std::min(s.value.find(',', start), s.value.size());
      auto verb = upper(std::string_view(s.value).substr(start, comma - start));
      if (!verb.empty()) c.server.disabled_commands.push_back(std::move(verb));
      start = comma + 1;
    }
  } else if (k == "use_home_dirs") {
    c.server.use_home_dirs = on;
  } else if (k == "home_dir") {
    c.server.home_dir = s.value;
  } else if (k == "banner") {
    c.server.banner = s.value;
  } else if (k == "control_idle_timeout") {
    read_number(s, c.timeouts.idle_seconds, 1, 1u << 30, problems);
  } else if (k == "control_preauth_timeout") {
    read_number(s, c.timeouts.login_seconds, 1, 1u << 30, problems);
  } else if (k == "inetd") {
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
  }
}

}  // namespace

OptionSupport support_for(std::string_view key) {
  if (const auto* rule = rule_for(key)) return {rule->support, rule->why};
  return {Support::Refused, "not supported by gridftpd"};
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
                                               ServerConfig& config, ProcessOptions& process) {
  std::vector<std::string> problems;
  for (const auto& setting : settings) {
    const auto support = support_for(setting.key);
    if (support.support == Support::Refused) {
      problems.push_back(fmt::format("{} ({}): {}", setting.key, setting.origin, support.why));
      continue;
    }
    apply_one(setting, config, process, problems);
  }
  return problems;
}

std::string describe_globus_support() {
  std::string taken, noop, refused;
  for (const auto& spec : option_table()) {
    const auto support = support_for(spec.key);
    std::string spelling = spec.long_flag.empty() ? "" : "-" + std::string(spec.long_flag);
    if (!spec.short_flag.empty())
      spelling += (spelling.empty() ? "-" : ", -") + std::string(spec.short_flag);
    const auto line = fmt::format("  {:<34} {}\n", spelling, support.why);
    (support.support == Support::Applied ? taken
     : support.support == Support::NoOp  ? noop
                                         : refused) += line;
  }
  return "globus-gridftp-server options gridftpd takes, with Globus's meaning:\n" + taken +
         "Accepted, with nothing to do:\n" + noop + "Refused at start-up, with the reason:\n" +
         refused;
}

}  // namespace gridftp::server::globus
