#include "server/config/server_config.hpp"

#include <cctype>
#include <limits>
#include <set>
#include <sstream>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <toml++/toml.h>

#include "protocol/control/host_port.hpp"
#include "protocol/control/restrict_paths.hpp"

namespace gridftp::server {
namespace {

// Reads one table, recording which keys were consumed so leftovers can be reported as unknown.
class TableReader {
 public:
  TableReader(const toml::table* table, std::string name, std::vector<std::string>& problems)
      : table_(table), name_(std::move(name)), problems_(problems) {}

  template <typename T>
  void read_integer(std::string_view key, T& out) {
    const auto* node = find(key);
    if (node == nullptr) return;
    // The type first: value<>() would also convert a float, out of range undefined (found by
    // tests/fuzz config: "port = 2e181").
    if (!node->is_integer()) return type_problem(key, *node, "an integer");
    const auto value = node->value_exact<std::int64_t>();
    if (!value) return type_problem(key, *node, "an integer");
    if (*value < 0 || static_cast<std::uint64_t>(*value) > std::numeric_limits<T>::max()) {
      return problem(key, *node, fmt::format("value {} is out of range", *value));
    }
    out = static_cast<T>(*value);
  }

  bool has(std::string_view key) const { return table_ != nullptr && table_->contains(key); }

  void read_bool(std::string_view key, bool& out) {
    const auto* node = find(key);
    if (node == nullptr) return;
    if (!node->is_boolean()) return type_problem(key, *node, "true or false");
    out = *node->value<bool>();
  }

  void read_string(std::string_view key, std::string& out) {
    const auto* node = find(key);
    if (node == nullptr) return;
    if (!node->is_string()) return type_problem(key, *node, "a string");
    out = *node->value<std::string>();
  }

  void read_path(std::string_view key, std::filesystem::path& out) {
    std::string text = out.string();
    read_string(key, text);
    out = text;
  }

  void read_string_list(std::string_view key, std::vector<std::string>& out) {
    const auto* node = find(key);
    if (node == nullptr) return;
    const auto* array = node->as_array();
    if (array == nullptr) return type_problem(key, *node, "an array of strings");
    out.clear();
    for (const auto& element : *array) {
      if (!element.is_string()) return type_problem(key, element, "an array of strings");
      out.push_back(*element.value<std::string>());
    }
  }

  void report_unknown_keys() {
    if (table_ == nullptr) return;
    for (const auto& [key, node] : *table_) {
      if (!seen_.contains(std::string(key.str()))) {
        problem(key.str(), node, "unknown key");
      }
    }
  }

 private:
  const toml::node* find(std::string_view key) {
    seen_.insert(std::string(key));
    return table_ == nullptr ? nullptr : table_->get(key);
  }
  void type_problem(std::string_view key, const toml::node& node, std::string_view expected) {
    problem(key, node, fmt::format("expected {}", expected));
  }
  void problem(std::string_view key, const toml::node& node, const std::string& what) {
    problems_.push_back(
        fmt::format("{}.{} (line {}): {}", name_, key, node.source().begin.line, what));
  }

  const toml::table* table_;
  std::string name_;
  std::vector<std::string>& problems_;
  std::set<std::string> seen_;
};

const toml::table* section(const toml::table& root, std::string_view name,
                           std::vector<std::string>& problems) {
  const auto* node = root.get(name);
  if (node == nullptr) return nullptr;
  if (!node->is_table()) {
    problems.push_back(
        fmt::format("{} (line {}): expected a table", name, node->source().begin.line));
    return nullptr;
  }
  return node->as_table();
}

// [listen], [limits], [timeouts] and [udpx]: addresses, ports and how long and how much.
void read_network_sections(const toml::table& root, ServerConfig& c,
                           std::vector<std::string>& problems) {
  TableReader listen(section(root, "listen", problems), "listen", problems);
  listen.read_string("control_interface", c.listen.control_interface);
  listen.read_integer("port", c.listen.port);
  listen.read_string("data_interface", c.listen.data_interface);
  listen.read_string("passive_address", c.listen.passive_address);
  listen.read_integer("passive_port_min", c.listen.passive_port_min);
  listen.read_integer("passive_port_max", c.listen.passive_port_max);
  listen.read_integer("source_port_min", c.listen.source_port_min);
  listen.read_integer("source_port_max", c.listen.source_port_max);
  listen.read_bool("require_data_peer_match", c.listen.require_data_peer_match);
  listen.read_integer("data_socket_buffer", c.listen.data_socket_buffer);
  listen.report_unknown_keys();

  TableReader limits(section(root, "limits", problems), "limits", problems);
  limits.read_integer("max_sessions", c.limits.max_sessions);
  limits.read_integer("max_sessions_per_user", c.limits.max_sessions_per_user);
  limits.read_integer("max_command_line_bytes", c.limits.max_command_line_bytes);
  limits.read_integer("max_sessions_per_address", c.limits.max_sessions_per_address);
  limits.read_integer("login_failure_delay_ms", c.limits.login_failure_delay_ms);
  limits.read_integer("max_login_failures", c.limits.max_login_failures);
  limits.report_unknown_keys();

  TableReader timeouts(section(root, "timeouts", problems), "timeouts", problems);
  timeouts.read_integer("idle_seconds", c.timeouts.idle_seconds);
  timeouts.read_integer("data_seconds", c.timeouts.data_seconds);
  timeouts.read_integer("login_seconds", c.timeouts.login_seconds);
  timeouts.read_integer("shutdown_grace_seconds", c.timeouts.shutdown_grace_seconds);
  timeouts.report_unknown_keys();

  TableReader udpx(section(root, "udpx", problems), "udpx", problems);
  udpx.read_integer("default_rate_bps", c.udpx.default_rate_bps);
  udpx.read_integer("max_rate_bps", c.udpx.max_rate_bps);
  udpx.read_integer("aggregate_rate_bps", c.udpx.aggregate_rate_bps);
  udpx.read_integer("idle_timeout_seconds", c.udpx.idle_timeout_seconds);
  udpx.read_bool("allow_unauthenticated", c.udpx.allow_unauthenticated);
  udpx.report_unknown_keys();
}

// [server], [anonymous], [accounts], [gsi] and [tls]: who may log in, where, and how.
void read_access_sections(const toml::table& root, ServerConfig& c,
                          std::vector<std::string>& problems) {
  TableReader server(section(root, "server", problems), "server", problems);
  server.read_integer("threads", c.server.threads);
  server.read_string("banner", c.server.banner);
  server.read_string("login_message", c.server.login_message);
  server.read_bool("create_missing_roots", c.server.create_missing_roots);
  server.read_string("restrict_paths", c.server.restrict_paths);
  server.read_string_list("disabled_commands", c.server.disabled_commands);
  server.read_bool("use_home_dirs", c.server.use_home_dirs);
  server.read_integer("partial_expiry_seconds", c.server.partial_expiry_seconds);
  server.read_string("home_dir", c.server.home_dir);
  for (auto& verb : c.server.disabled_commands)
    for (auto& ch : verb) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  server.report_unknown_keys();

  TableReader anonymous(section(root, "anonymous", problems), "anonymous", problems);
  anonymous.read_bool("enabled", c.anonymous.enabled);
  anonymous.read_path("root", c.anonymous.root);
  anonymous.read_string_list("writable", c.anonymous.writable);
  anonymous.read_string("account", c.anonymous.account);
  anonymous.report_unknown_keys();

  TableReader accounts(section(root, "accounts", problems), "accounts", problems);
  accounts.read_path("password_file", c.accounts.password_file);
  accounts.read_string("account", c.accounts.account);
  accounts.report_unknown_keys();

  TableReader gsi(section(root, "gsi", problems), "gsi", problems);
  c.gsi.enabled_unset = !gsi.has("enabled");
  gsi.read_bool("enabled", c.gsi.enabled);
  gsi.read_path("host_cert", c.gsi.host_cert);
  gsi.read_path("host_key", c.gsi.host_key);
  gsi.read_path("cert_dir", c.gsi.cert_dir);
  gsi.read_path("gridmap", c.gsi.gridmap);
  gsi.read_path("root", c.gsi.root);
  gsi.read_bool("integrity_only_safe", c.gsi.integrity_only_safe);
  gsi.read_bool("process_per_session", c.gsi.process_per_session);
  gsi.read_bool("fork_server", c.gsi.fork_server);
  gsi.read_string("delegation_key", c.gsi.delegation_key);
  gsi.report_unknown_keys();

  TableReader tls(section(root, "tls", problems), "tls", problems);
  tls.read_bool("enabled", c.tls.enabled);
  tls.read_path("cert", c.tls.cert);
  tls.read_path("key", c.tls.key);
  tls.read_bool("required", c.tls.required);
  tls.report_unknown_keys();
}

// [metrics], [storage] and [logging]: what the server writes and reports.
void read_output_sections(const toml::table& root, ServerConfig& c,
                          std::vector<std::string>& problems) {
  TableReader metrics(section(root, "metrics", problems), "metrics", problems);
  metrics.read_bool("enabled", c.metrics.enabled);
  metrics.read_string("address", c.metrics.address);
  metrics.read_integer("port", c.metrics.port);
  metrics.report_unknown_keys();

  TableReader storage(section(root, "storage", problems), "storage", problems);
  storage.read_bool("durable", c.storage.durable);
  storage.read_integer("block_bytes", c.storage.block_bytes);
  storage.read_string("sendfile", c.storage.sendfile);
  storage.read_string_list("checksums", c.storage.checksums);
  storage.report_unknown_keys();

  TableReader striping(section(root, "striping", problems), "striping", problems);
  striping.read_string_list("movers", c.striping.movers);
  striping.read_bool("mover", c.striping.mover);
  striping.read_string_list("frontends", c.striping.frontends);
  striping.read_bool("hybrid", c.striping.hybrid);
  striping.report_unknown_keys();

  TableReader logging(section(root, "logging", problems), "logging", problems);
  logging.read_string("level", c.logging.level);
  logging.read_path("server_log", c.logging.server_log);
  logging.read_path("transfer_log", c.logging.transfer_log);
  logging.read_string("transfer_log_format", c.logging.transfer_log_format);
  logging.report_unknown_keys();
}

void read_sections(const toml::table& root, ServerConfig& c, std::vector<std::string>& problems) {
  read_network_sections(root, c, problems);
  read_access_sections(root, c, problems);
  read_output_sections(root, c, problems);
}

const std::set<std::string, std::less<>> kSections{
    "listen", "server",  "limits", "timeouts", "anonymous", "accounts", "gsi",
    "tls",    "logging", "udpx",   "metrics",  "storage",   "striping"};

}  // namespace

ConfigLoad parse_config(std::string_view toml_text, std::string_view source_name) {
  ConfigLoad load;
  toml::table root;
  try {
    // Debian builds toml++ with exceptions, so a syntax error arrives as parse_error.
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& error) {
    load.problems.push_back(
        fmt::format("{} line {}: {}", source_name, error.source().begin.line, error.description()));
    return load;
  }
  for (const auto& [key, node] : root) {
    if (!kSections.contains(key.str())) {
      load.problems.push_back(
          fmt::format("{} (line {}): unknown table", key.str(), node.source().begin.line));
    }
  }
  read_sections(root, load.config, load.problems);
  return load;
}

namespace {

bool is_ipv4_literal(const std::string& text) {
  in_addr parsed{};
  return ::inet_pton(AF_INET, text.c_str(), &parsed) == 1;
}

// [listen]: the announced address and the two port ranges.
void check_listen(const ListenConfig& listen, std::vector<std::string>& problems) {
  if (!listen.passive_address.empty() && !is_ipv4_literal(listen.passive_address)) {
    problems.push_back(
        fmt::format("listen.passive_address '{}' is not an IPv4 address (PASV can carry no other)",
                    listen.passive_address));
  }
  if (listen.passive_port_min > listen.passive_port_max) {
    problems.emplace_back("listen.passive_port_min is above listen.passive_port_max");
  }
  if ((listen.passive_port_min == 0) != (listen.passive_port_max == 0)) {
    problems.emplace_back(
        "listen.passive_port_min and passive_port_max must both be 0 or both set");
  }
  if (listen.source_port_min > listen.source_port_max ||
      (listen.source_port_min == 0) != (listen.source_port_max == 0)) {
    problems.emplace_back(
        "listen.source_port_min and source_port_max must both be 0, or a range low to high");
  }
}

}  // namespace

namespace {

// Frontends and movers prove themselves with the host certificate (docs/STRIPING.md).
void check_striping(const ServerConfig& c, std::vector<std::string>& problems) {
  const auto& striping = c.striping;
  if ((striping.mover || !striping.movers.empty()) && !c.gsi.enabled) {
    problems.emplace_back(
        "[striping] needs [gsi] enabled: a frontend and its movers prove themselves to each other "
        "with the host certificate");
  }
  if (striping.mover && !striping.movers.empty()) {
    problems.emplace_back(
        "striping: a server is a frontend (movers, -r) or a mover (mover, -dn), not both");
  }
  for (const auto& mover : striping.movers) {
    if (!protocol::control::parse_named_endpoint(mover)) {
      problems.push_back(fmt::format(
          "striping.movers entry '{}' is not host:port (a port from 1 to 65535)", mover));
    }
  }
}

}  // namespace

std::vector<std::string> validate(const ServerConfig& c) {
  std::vector<std::string> problems;
  if (c.tls.cert.empty() != c.tls.key.empty())
    problems.emplace_back("tls.cert and tls.key must both be set or both empty");
  if (c.tls.required && !c.tls.enabled) problems.emplace_back("tls.required needs tls.enabled");
  check_listen(c.listen, problems);
  if (c.limits.max_command_line_bytes < 64) {
    problems.emplace_back("limits.max_command_line_bytes must be at least 64");
  }
  if (std::string why; !c.server.restrict_paths.empty() &&
                       !protocol::control::check_restrict_paths(c.server.restrict_paths, why)) {
    problems.push_back("server.restrict_paths: " + why);
  }
  if (c.limits.max_sessions == 0) problems.emplace_back("limits.max_sessions must be at least 1");
  if (c.anonymous.enabled && !c.anonymous.root.is_absolute()) {
    problems.emplace_back("anonymous.root must be an absolute path when anonymous.enabled is true");
  }
  for (const auto& area : c.anonymous.writable) {
    const std::filesystem::path p(area);
    bool has_dotdot = false;
    for (const auto& part : p) has_dotdot = has_dotdot || part == "..";
    if (p.is_absolute() || has_dotdot || area.empty()) {
      problems.push_back(
          fmt::format("anonymous.writable entry '{}' must be a relative subdirectory", area));
    }
  }
  if (!c.anonymous.enabled && c.accounts.password_file.empty() && !c.gsi.enabled) {
    problems.emplace_back(
        "no way to log in: enable [anonymous] or [gsi], or set accounts.password_file");
  }
  if (c.gsi.delegation_key != "ec-p256" && c.gsi.delegation_key != "rsa") {
    problems.push_back(
        fmt::format("gsi.delegation_key '{}' is not one of ec-p256, rsa", c.gsi.delegation_key));
  }
  static const std::set<std::string, std::less<>> kLevels{"trace", "debug",    "info", "warn",
                                                          "error", "critical", "off"};
  if (!kLevels.contains(c.logging.level)) {
    problems.push_back(
        fmt::format("logging.level '{}' is not one of trace, debug, info, warn, "
                    "error, critical, off",
                    c.logging.level));
  }
  constexpr std::uint64_t kMaxBlockBytes = 64U << 20;
  if (c.storage.block_bytes < 4096 || c.storage.block_bytes > kMaxBlockBytes) {
    problems.push_back(fmt::format("storage.block_bytes {} is not between 4096 and {}",
                                   c.storage.block_bytes, kMaxBlockBytes));
  }
  if (c.storage.sendfile != "other-hosts" && c.storage.sendfile != "always" &&
      c.storage.sendfile != "never") {
    problems.push_back(fmt::format("storage.sendfile '{}' is not one of other-hosts, always, never",
                                   c.storage.sendfile));
  }
  static const std::set<std::string, std::less<>> kChecksums{"ADLER32", "MD5",    "SHA1",
                                                             "SHA256",  "SHA512", "CRC32C"};
  for (const auto& name : c.storage.checksums) {
    if (!kChecksums.contains(name)) {
      problems.push_back(fmt::format(
          "storage.checksums: '{}' is not one of ADLER32, MD5, SHA1, SHA256, SHA512, CRC32C",
          name));
    }
  }
  check_striping(c, problems);
  if (c.logging.transfer_log_format != "json" && c.logging.transfer_log_format != "netlogger") {
    problems.push_back(fmt::format("logging.transfer_log_format '{}' is not one of json, netlogger",
                                   c.logging.transfer_log_format));
  }
  return problems;
}

namespace {

toml::array string_array(const std::vector<std::string>& items) {
  toml::array out;
  for (const auto& item : items) out.push_back(item);
  return out;
}

}  // namespace

std::string format_config(const ServerConfig& c) {
  const auto n = [](auto value) { return static_cast<std::int64_t>(value); };
  toml::table root;
  root.insert("listen", toml::table{{"control_interface", c.listen.control_interface},
                                    {"port", n(c.listen.port)},
                                    {"data_interface", c.listen.data_interface},
                                    {"passive_address", c.listen.passive_address},
                                    {"passive_port_min", n(c.listen.passive_port_min)},
                                    {"passive_port_max", n(c.listen.passive_port_max)},
                                    {"source_port_min", n(c.listen.source_port_min)},
                                    {"source_port_max", n(c.listen.source_port_max)},
                                    {"require_data_peer_match", c.listen.require_data_peer_match},
                                    {"data_socket_buffer", n(c.listen.data_socket_buffer)}});
  root.insert("server",
              toml::table{{"threads", n(c.server.threads)},
                          {"banner", c.server.banner},
                          {"login_message", c.server.login_message},
                          {"create_missing_roots", c.server.create_missing_roots},
                          {"restrict_paths", c.server.restrict_paths},
                          {"use_home_dirs", c.server.use_home_dirs},
                          {"partial_expiry_seconds", n(c.server.partial_expiry_seconds)},
                          {"home_dir", c.server.home_dir},
                          {"disabled_commands", string_array(c.server.disabled_commands)}});
  root.insert("limits",
              toml::table{{"max_sessions", n(c.limits.max_sessions)},
                          {"max_sessions_per_user", n(c.limits.max_sessions_per_user)},
                          {"max_command_line_bytes", n(c.limits.max_command_line_bytes)},
                          {"max_sessions_per_address", n(c.limits.max_sessions_per_address)},
                          {"login_failure_delay_ms", n(c.limits.login_failure_delay_ms)},
                          {"max_login_failures", n(c.limits.max_login_failures)}});
  root.insert("timeouts",
              toml::table{{"idle_seconds", n(c.timeouts.idle_seconds)},
                          {"data_seconds", n(c.timeouts.data_seconds)},
                          {"login_seconds", n(c.timeouts.login_seconds)},
                          {"shutdown_grace_seconds", n(c.timeouts.shutdown_grace_seconds)}});
  root.insert("anonymous", toml::table{{"enabled", c.anonymous.enabled},
                                       {"root", c.anonymous.root.string()},
                                       {"writable", string_array(c.anonymous.writable)},
                                       {"account", c.anonymous.account}});
  root.insert("accounts", toml::table{{"password_file", c.accounts.password_file.string()},
                                      {"account", c.accounts.account}});
  root.insert("gsi", toml::table{{"enabled", c.gsi.enabled},
                                 {"host_cert", c.gsi.host_cert.string()},
                                 {"host_key", c.gsi.host_key.string()},
                                 {"cert_dir", c.gsi.cert_dir.string()},
                                 {"gridmap", c.gsi.gridmap.string()},
                                 {"root", c.gsi.root.string()},
                                 {"integrity_only_safe", c.gsi.integrity_only_safe},
                                 {"process_per_session", c.gsi.process_per_session},
                                 {"fork_server", c.gsi.fork_server},
                                 {"delegation_key", c.gsi.delegation_key}});
  root.insert("tls", toml::table{{"enabled", c.tls.enabled},
                                 {"cert", c.tls.cert.string()},
                                 {"key", c.tls.key.string()},
                                 {"required", c.tls.required}});
  root.insert("logging", toml::table{{"level", c.logging.level},
                                     {"server_log", c.logging.server_log.string()},
                                     {"transfer_log", c.logging.transfer_log.string()},
                                     {"transfer_log_format", c.logging.transfer_log_format}});
  root.insert("udpx", toml::table{{"default_rate_bps", n(c.udpx.default_rate_bps)},
                                  {"max_rate_bps", n(c.udpx.max_rate_bps)},
                                  {"aggregate_rate_bps", n(c.udpx.aggregate_rate_bps)},
                                  {"idle_timeout_seconds", n(c.udpx.idle_timeout_seconds)},
                                  {"allow_unauthenticated", c.udpx.allow_unauthenticated}});
  root.insert("metrics", toml::table{{"enabled", c.metrics.enabled},
                                     {"address", c.metrics.address},
                                     {"port", n(c.metrics.port)}});
  root.insert("storage", toml::table{{"durable", c.storage.durable},
                                     {"block_bytes", n(c.storage.block_bytes)},
                                     {"sendfile", c.storage.sendfile},
                                     {"checksums", string_array(c.storage.checksums)}});
  root.insert("striping", toml::table{{"movers", string_array(c.striping.movers)},
                                      {"mover", c.striping.mover},
                                      {"frontends", string_array(c.striping.frontends)},
                                      {"hybrid", c.striping.hybrid}});
  std::ostringstream out;
  out << root << "\n";
  return out.str();
}

transport::SendfileUse sendfile_use(const StorageConfig& storage) {
  if (storage.sendfile == "always") return transport::SendfileUse::Always;
  if (storage.sendfile == "never") return transport::SendfileUse::Never;
  return transport::SendfileUse::OtherHosts;
}

}  // namespace gridftp::server
