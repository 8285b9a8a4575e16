#include "server/config/globus_options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include "protocol/core/errors.hpp"

namespace gridftp::server::globus {
namespace {

// globus-gridftp-server 13.24's options (its -help, and the config keys of its option table):
// key, long spelling, short spelling, value.
constexpr std::array kOptions = std::to_array<OptionSpec>({
    {"help", "help", "h", ValueKind::Flag},
    {"longhelp", "longhelp", "hh", ValueKind::Flag},
    {"version", "version", "v", ValueKind::Flag},
    {"versions", "versions", "V", ValueKind::Flag},
    {"inetd", "inetd", "i", ValueKind::Flag},
    {"daemon", "daemon", "s", ValueKind::Flag},
    {"detach", "detach", "S", ValueKind::Flag},
    {"ssh", "ssh", "", ValueKind::Flag},
    {"exec", "exec", "", ValueKind::Text},
    {"chdir", "chdir", "", ValueKind::Flag},
    {"chdir_to", "chdir-to", "", ValueKind::Text},
    {"threads", "threads", "", ValueKind::Number},
    {"fork", "fork", "f", ValueKind::Flag},
    {"single", "single", "1", ValueKind::Flag},
    {"chroot_path", "chroot-path", "", ValueKind::Text},
    {"auth_level", "auth-level", "", ValueKind::Number},
    {"process_user", "process-user", "", ValueKind::Text},
    {"process_group", "process-group", "", ValueKind::Text},
    {"ipc_allow_from", "ipc-allow-from", "", ValueKind::Text},
    {"ipc_deny_from", "ipc-deny-from", "", ValueKind::Text},
    {"allow_from", "allow-from", "", ValueKind::Text},
    {"deny_from", "deny-from", "", ValueKind::Text},
    {"encrypt_data", "encrypt-data", "", ValueKind::Flag},
    {"secure_ipc", "secure-ipc", "si", ValueKind::Flag},
    {"ipc_auth_mode", "ipc-auth-mode", "ia", ValueKind::Text},
    {"allow_anonymous", "allow-anonymous", "aa", ValueKind::Flag},
    {"anonymous_names_allowed", "anonymous-names-allowed", "", ValueKind::Text},
    {"anonymous_user", "anonymous-user", "", ValueKind::Text},
    {"anonymous_group", "anonymous-group", "", ValueKind::Text},
    {"sharing_dn", "sharing-dn", "", ValueKind::Text},
    {"sharing_state_dir", "sharing-state-dir", "", ValueKind::Text},
    {"sharing_control", "sharing-control", "", ValueKind::Flag},
    {"sharing_rp", "sharing-rp", "", ValueKind::Text},
    {"sharing_users_allow", "sharing-users-allow", "", ValueKind::Text},
    {"sharing_users_deny", "sharing-users-deny", "", ValueKind::Text},
    {"sharing_groups_allow", "sharing-groups-allow", "", ValueKind::Text},
    {"sharing_groups_deny", "sharing-groups-deny", "", ValueKind::Text},
    {"allow_root", "allow-root", "", ValueKind::Flag},
    {"allow_disabled_login", "allow-disabled-login", "", ValueKind::Flag},
    {"pw_file", "password-file", "", ValueKind::Text},
    {"connections_max", "connections-max", "", ValueKind::Number},
    {"connections_disabled", "connections-disabled", "", ValueKind::Flag},
    {"offline_msg", "offline-msg", "", ValueKind::Text},
    {"disable_command_list", "disable-command-list", "", ValueKind::Text},
    {"cas", "authz-callouts", "cas", ValueKind::Flag},
    {"use_home_dirs", "use-home-dirs", "", ValueKind::Flag},
    {"home_dir", "home-dir", "", ValueKind::Text},
    {"restrict_paths", "restrict-paths", "rp", ValueKind::Text},
    {"rp_follow_symlinks", "rp-follow-symlinks", "", ValueKind::Flag},
    {"acl", "acl", "em", ValueKind::Text},
    {"log_level", "log-level", "d", ValueKind::Text},
    {"log_module", "log-module", "", ValueKind::Text},
    {"log_single", "logfile", "l", ValueKind::Text},
    {"log_unique", "logdir", "L", ValueKind::Text},
    {"log_transfer", "log-transfer", "Z", ValueKind::Text},
    {"log_filemode", "log-filemode", "", ValueKind::Text},
    {"disable_usage_stats", "disable-usage-stats", "", ValueKind::Flag},
    {"usage_stats_target", "usage-stats-target", "", ValueKind::Text},
    {"usage_stats_id", "usage-stats-id", "", ValueKind::Text},
    {"remote_nodes", "remote-nodes", "r", ValueKind::Text},
    {"hybrid", "hybrid", "", ValueKind::Flag},
    {"data_node", "data-node", "dn", ValueKind::Flag},
    {"stripe_blocksize", "stripe-blocksize", "sbs", ValueKind::Number},
    {"stripe_count", "stripe-count", "", ValueKind::Number},
    {"stripe_layout", "stripe-layout", "sl", ValueKind::Number},
    {"stripe_blocksize_locked", "stripe-blocksize-locked", "", ValueKind::Flag},
    {"stripe_layout_locked", "stripe-layout-locked", "", ValueKind::Flag},
    {"blocksize", "blocksize", "bs", ValueKind::Number},
    {"sync_writes", "sync-writes", "", ValueKind::Flag},
    {"perms", "perms", "", ValueKind::Text},
    {"file_timeout", "file-timeout", "", ValueKind::Number},
    {"port", "port", "p", ValueKind::Number},
    {"control_interface", "control-interface", "", ValueKind::Text},
    {"data_interface", "data-interface", "", ValueKind::Text},
    {"ipc_interface", "ipc-interface", "", ValueKind::Text},
    {"hostname", "hostname", "", ValueKind::Text},
    {"ipc_port", "ipc-port", "", ValueKind::Number},
    {"control_preauth_timeout", "control-preauth-timeout", "", ValueKind::Number},
    {"control_idle_timeout", "control-idle-timeout", "", ValueKind::Number},
    {"ipc_idle_timeout", "ipc-idle-timeout", "", ValueKind::Number},
    {"ipc_connect_timeout", "ipc-connect-timeout", "", ValueKind::Number},
    {"allow_udt", "allow-udt", "", ValueKind::Flag},
    {"port_range", "port-range", "", ValueKind::Text},
    {"epsv_ip", "epsv-ip", "", ValueKind::Flag},
    {"epsv_match", "epsv-match", "", ValueKind::Flag},
    {"banner", "banner", "", ValueKind::Text},
    {"banner_file", "banner-file", "", ValueKind::Text},
    {"banner_terse", "banner-terse", "", ValueKind::Flag},
    {"banner_append", "banner-append", "", ValueKind::Flag},
    {"version_tag", "version-tag", "", ValueKind::Text},
    {"login_msg", "login-msg", "", ValueKind::Text},
    {"login_msg_file", "login-msg-file", "", ValueKind::Text},
    {"dsi", "dsi", "", ValueKind::Text},
    {"allowed_modules", "allowed-modules", "", ValueKind::Text},
    {"dc_whitelist", "dc-whitelist", "", ValueKind::Text},
    {"fs_whitelist", "fs-whitelist", "", ValueKind::Text},
    {"popen_whitelist", "popen-whitelist", "", ValueKind::Text},
    {"xnetmgr", "xnetmgr", "", ValueKind::Text},
    {"dc_default", "dc-default", "", ValueKind::Text},
    {"fs_default", "fs-default", "", ValueKind::Text},
    {"configfile", "", "c", ValueKind::Text},
    {"config_dir", "", "C", ValueKind::Text},
    {"config_base_path", "config-base-path", "", ValueKind::Text},
    {"debug", "debug", "", ValueKind::Flag},
    {"pidfile", "pidfile", "", ValueKind::Text},
});

// Errc::BadArgument, with the reason in `why`.
std::error_code refuse(std::string& why, std::string text) {
  why = std::move(text);
  return make_error_code(protocol::Errc::BadArgument);
}

bool valid_value(const OptionSpec& spec, std::string_view value) {
  if (spec.kind == ValueKind::Number) return parse_globus_number(value).has_value();
  if (spec.kind == ValueKind::Flag) return value == "0" || value == "1";
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// One token of a config line at `at`: a double-quoted string (no escapes) or a run of
// non-blank characters. nullopt for an unterminated quote.
std::optional<std::string> next_token(std::string_view line, std::size_t& at) {
  while (at < line.size() && is_space(line[at])) ++at;
  if (at >= line.size()) return std::string();
  if (line[at] == '"') {
    const auto end = line.find('"', at + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string token(line.substr(at + 1, end - at - 1));
    at = end + 1;
    return token;
  }
  const auto start = at;
  while (at < line.size() && !is_space(line[at])) ++at;
  return std::string(line.substr(start, at - start));
}

}  // namespace

std::span<const OptionSpec> option_table() { return kOptions; }

const OptionSpec* option_by_key(std::string_view key) {
  const auto found = std::find_if(kOptions.begin(), kOptions.end(),
                                  [&](const OptionSpec& spec) { return spec.key == key; });
  return found == kOptions.end() ? nullptr : &*found;
}

const OptionSpec* option_by_flag(std::string_view flag) {
  if (flag.empty()) return nullptr;
  const auto found = std::find_if(kOptions.begin(), kOptions.end(), [&](const OptionSpec& spec) {
    return spec.long_flag == flag || spec.short_flag == flag;
  });
  return found == kOptions.end() ? nullptr : &*found;
}

std::optional<std::uint64_t> parse_globus_number(std::string_view text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return std::nullopt;
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == text.size()) return value;
  if (i + 1 != text.size()) return std::nullopt;
  int shift = 0;
  switch (text[i]) {
    case 'b':
    case 'B':
      shift = 0;
      break;
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    default:
      return std::nullopt;
  }
  if (value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<FlagWord> read_flag_word(std::string_view word) {
  if (word.size() < 2 || word.front() != '-') return std::nullopt;
  word.remove_prefix(word.starts_with("--") ? 2 : 1);
  if (const auto* spec = option_by_flag(word)) return FlagWord{spec, false};
  // A negated flag: `no-fork`, `nfork`, `nf` (no Globus option name starts with n).
  for (const std::string_view prefix : {"no-", "n"}) {
    if (word.size() <= prefix.size()) continue;
    std::string head(word.substr(0, prefix.size()));
    std::transform(head.begin(), head.end(), head.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (head != prefix) continue;
    const auto* spec = option_by_flag(word.substr(prefix.size()));
    if (spec != nullptr && spec->kind == ValueKind::Flag) return FlagWord{spec, true};
  }
  return std::nullopt;
}

Result<std::vector<Setting>> parse_globus_command_line(std::span<const std::string> words,
                                                       std::string& why) {
  std::vector<Setting> settings;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto flag = read_flag_word(words[i]);
    if (!flag) return make_error(refuse(why, "unknown option on the command line: " + words[i]));
    const auto& spec = *flag->spec;
    if (spec.kind == ValueKind::Flag) {
      settings.push_back({std::string(spec.key), flag->negated ? "0" : "1", "command line"});
      continue;
    }
    if (i + 1 >= words.size()) return make_error(refuse(why, words[i] + " needs a value"));
    const auto& value = words[++i];
    if (!valid_value(spec, value))
      return make_error(refuse(why, words[i - 1] + " wants a number, not '" + value + "'"));
    settings.push_back({std::string(spec.key), value, "command line"});
  }
  return settings;
}

Result<GlobusConfigFile> parse_globus_config_file(std::string_view text, std::string_view name,
                                                  std::string& why) {
  GlobusConfigFile file;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    const auto line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const auto where = std::string(name) + ":" + std::to_string(line_number);
    std::size_t at = 0;
    while (at < line.size() && is_space(line[at])) ++at;
    if (at >= line.size() || line[at] == '#') {
      if (end == text.size()) break;
      continue;
    }
    auto key = next_token(line, at);
    auto value = key ? next_token(line, at) : std::nullopt;
    if (!key || !value) return make_error(refuse(why, where + ": unterminated quote"));
    while (at < line.size() && is_space(line[at])) ++at;
    if (at < line.size())
      return make_error(refuse(why, where + ": text after the value of '" + *key +
                                        "' (comments go on lines of their own)"));
    if (value->empty()) return make_error(refuse(why, where + ": '" + *key + "' has no value"));
    if (key->front() == '$') {
      file.environment.emplace_back(key->substr(1), *value);
    } else {
      const auto* spec = option_by_key(*key);
      if (spec == nullptr)
        return make_error(refuse(why, where + ": unknown option '" + *key + "'"));
      if (!valid_value(*spec, *value)) {
        return make_error(refuse(why, where + ": '" + *key + "' wants " +
                                          (spec->kind == ValueKind::Flag ? "0 or 1" : "a number") +
                                          ", not '" + *value + "'"));
      }
      file.settings.push_back({*key, *value, where});
    }
    if (end == text.size()) break;
  }
  return file;
}

bool is_config_dir_entry(std::string_view file_name) {
  if (file_name.empty() || file_name.front() == '.' || file_name.back() == '~') return false;
  const auto dot = file_name.rfind('.');
  if (dot == std::string_view::npos) return true;
  const auto extension = file_name.substr(dot);
  for (const std::string_view skipped :
       {".bak", ".rpmnew", ".rpmsave", ".dpkg-dist", ".dpkg-new", ".dpkg-old"}) {
    if (extension == skipped) return false;
  }
  return true;
}

}  // namespace gridftp::server::globus
