#include "server/startup.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/control/virtual_path.hpp"
#include "security/gridmap.hpp"
#include "server/auth/account_home.hpp"
#include "server/auth/ftps_context.hpp"
#include "server/config/embedded_config.hpp"
#include "server/config/globus_environment.hpp"
#include "server/config/globus_settings.hpp"
#include "server/config/globus_start.hpp"
#include "server/config/session_accounts.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

ConfigLoad load_config_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) {
    ConfigLoad load;
    load.problems.push_back(fmt::format("cannot read config file {}", path.string()));
    return load;
  }
  std::stringstream text;
  text << file.rdbuf();
  return parse_config(text.str(), path.string());
}

namespace {

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// gridftpd's TOML has tables or `key = value`; Globus's files have neither (docs/GLOBUS.md §2).
bool looks_like_toml(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') return true;
    const auto equals = line.find('=');
    const auto space = line.find_first_of(" \t");
    return equals != std::string_view::npos && (space == std::string_view::npos || equals < space ||
                                                line.find_first_not_of(" \t", space) == equals);
  }
  return false;
}

void add_globus_file(const std::filesystem::path& path, const std::string& text,
                     StartupLayers& layers) {
  std::string why;
  auto parsed = globus::parse_globus_config_file(text, path.string(), why);
  if (!parsed) {
    layers.problems.push_back(why);
    return;
  }
  layers.settings.insert(layers.settings.end(), parsed->settings.begin(), parsed->settings.end());
  layers.environment.insert(layers.environment.end(), parsed->environment.begin(),
                            parsed->environment.end());
}

}  // namespace

StartupLayers load_startup_layers(const std::optional<std::string>& config_file,
                                  const std::optional<std::string>& config_dir, bool globus_start) {
  StartupLayers layers;
  std::optional<std::string> main_text;
  if (config_file) {
    main_text = read_text(*config_file);
    if (!main_text) {
      layers.problems.push_back(fmt::format("cannot read config file {}", *config_file));
      return layers;
    }
  }
  const bool toml = main_text && looks_like_toml(*main_text);
  const bool globus = !toml && (config_file || config_dir || globus_start);
  if (globus) {
    layers.config = globus::globus_site_defaults();
    layers.format = "Globus";
  } else {
    auto base = toml ? parse_config(*main_text, *config_file)
                     : parse_config(embedded_default_config(), "built-in config");
    layers.config = std::move(base.config);
    layers.problems = std::move(base.problems);
    layers.format = toml ? "gridftpd TOML" : "built-in";
  }
  if (config_dir) {
    std::error_code ec;
    std::vector<std::filesystem::path> entries;
    for (const auto& entry : std::filesystem::directory_iterator(*config_dir, ec)) {
      if (globus::is_config_dir_entry(entry.path().filename().string())) {
        entries.push_back(entry.path());
      }
    }
    if (ec) layers.problems.push_back(fmt::format("config dir {}: {}", *config_dir, ec.message()));
    std::sort(entries.begin(), entries.end());
    for (const auto& entry : entries) {
      const auto text = read_text(entry);
      if (!text) {
        layers.problems.push_back(fmt::format("cannot read config file {}", entry.string()));
        continue;
      }
      add_globus_file(entry, *text, layers);
    }
  }
  if (main_text && !toml) add_globus_file(*config_file, *main_text, layers);
  return layers;
}

std::vector<std::string> load_accounts(const AccountsConfig& config,
                                       std::vector<auth::Account>& accounts) {
  if (config.password_file.empty()) return {};
  auto text = auth::read_password_file(config.password_file);
  if (!text) {
    return {fmt::format("accounts.password_file {}: {}", config.password_file.string(),
                        text.error().message())};
  }
  auto parsed = auth::parse_password_file(*text);
  std::vector<std::string> problems;
  for (const auto& problem : parsed.problems) {
    problems.push_back(fmt::format("{}: {}", config.password_file.string(), problem));
  }
  accounts = std::move(parsed.accounts);
  return problems;
}

std::vector<std::string> prepare_roots(const ServerConfig& config) {
  std::vector<std::string> problems;
  if (!config.anonymous.enabled || !config.server.create_missing_roots) return problems;
  std::error_code ec;
  std::filesystem::create_directories(config.anonymous.root, ec);
  if (ec)
    problems.push_back(
        fmt::format("cannot create {}: {}", config.anonymous.root.string(), ec.message()));
  const auto* owner = ::geteuid() == 0 && !config.anonymous.account.empty()
                          ? ::getpwnam(config.anonymous.account.c_str())
                          : nullptr;
  for (const auto& area : config.anonymous.writable) {
    const auto normalized = protocol::control::resolve_virtual_path("/", area);
    if (!normalized || *normalized == "/") continue;
    const auto path = config.anonymous.root / normalized->substr(1);
    std::filesystem::create_directories(path, ec);
    if (ec) {
      problems.push_back(fmt::format("cannot create writable area {}: {}", area, ec.message()));
      continue;
    }
    // A writable area the anonymous account could not write is of no use: one root owns (made
    // here, or by an earlier start as root) goes to the account. One the operator gave to
    // somebody else keeps its owner.
    struct stat status {};
    const bool roots = ::stat(path.c_str(), &status) == 0 && status.st_uid == 0;
    if (roots && owner != nullptr && ::chown(path.c_str(), owner->pw_uid, owner->pw_gid) != 0)
      problems.push_back(fmt::format("cannot give writable area {} to {}: {}", area,
                                     config.anonymous.account, std::strerror(errno)));
  }
  return problems;
}

std::vector<std::string> resolve_data_interface(ServerConfig& config) {
  auto& name = config.listen.data_interface;
  if (name.empty()) return {};
  boost::system::error_code ec;
  transport::asio::ip::make_address(name, ec);
  if (!ec) return {};
  transport::asio::io_context io;
  transport::asio::ip::tcp::resolver resolver(io);
  const auto results = resolver.resolve(name, "", ec);
  if (ec || results.empty())
    return {"cannot resolve data interface '" + name + "': " + ec.message()};
  name = results.begin()->endpoint().address().to_string();
  return {};
}

AssembledConfig assemble_config(const std::vector<globus::Setting>& command_line,
                                globus::ProcessOptions& process, std::vector<std::string>& notes) {
  AssembledConfig out;
  // A view: it reads the environment when asked, so it also sees what `$NAME value` lines set.
  const auto environment = globus::process_environment();
  const bool globus_start = globus::command_line_names_globus(command_line) ||
                            globus::environment_names_globus(environment);
  auto layers = load_startup_layers(process.config_file, process.config_dir, globus_start);
  if (!layers.problems.empty()) {
    out.problems = std::move(layers.problems);
    return out;
  }
  for (const auto& [name, value] : layers.environment) ::setenv(name.c_str(), value.c_str(), 1);
  out.config = std::move(layers.config);
  auto settings = std::move(layers.settings);
  settings.insert(settings.end(), command_line.begin(), command_line.end());
  out.problems = globus::apply_globus_settings(settings, out.config, process, out.warnings);
  if (!out.problems.empty()) return out;
  out.problems = globus::apply_globus_environment(out.config, environment, notes);
  if (process.anonymous_by_globus && layers.format != "gridftpd TOML") {
    // Globus's anonymous users see the real "/", writable where the kernel lets their account.
    out.config.anonymous.root = "/";
    out.config.anonymous.writable = {"."};
  }
  auto accounts = check_session_accounts(out.config, ::geteuid() == 0, auth::own_account_name(),
                                         system_accounts());
  out.problems.insert(out.problems.end(), accounts.problems.begin(), accounts.problems.end());
  notes.insert(notes.end(), accounts.notes.begin(), accounts.notes.end());
  auto more = resolve_data_interface(out.config);
  out.problems.insert(out.problems.end(), more.begin(), more.end());
  if (out.problems.empty()) out.problems = validate(out.config);
  return out;
}

ReloadAssembly assemble_reload(const std::vector<globus::Setting>& command_line,
                               globus::ProcessOptions process_before_config, bool gsi_enabled) {
  ReloadAssembly out;
  std::vector<std::string> notes;  // said once at start-up; a reload does not repeat them
  auto again = assemble_config(command_line, process_before_config, notes);
  out.problems = std::move(again.problems);
  out.warnings = std::move(again.warnings);
  if (out.problems.empty())
    out.problems = load_accounts(again.config.accounts, out.reload.accounts);
  // The gridmap is read again only where GSI was on at start-up: the GSI context is not.
  if (out.problems.empty() && gsi_enabled) {
    std::string why;
    auto gridmap = security::load_gridmap(again.config.gsi.gridmap, why);
    if (gridmap) {
      out.reload.gridmap = std::move(*gridmap);
    } else {
      out.problems.push_back("gsi.gridmap (" + again.config.gsi.gridmap.string() +
                             "): " + (why.empty() ? gridmap.error().message() : why));
    }
  }
  if (out.problems.empty()) out.reload.config = std::move(again.config);
  return out;
}

std::optional<SecurityContexts> load_security_contexts(const ServerConfig& config,
                                                       std::string& problem) {
  SecurityContexts contexts;
  if (config.gsi.enabled) {
    std::string why;
    auto loaded = auth::load_gsi_context(config.gsi, why);
    if (!loaded) {
      problem = why;
      return std::nullopt;
    }
    contexts.gsi = std::move(*loaded);
  }
  if (config.tls.enabled) {
    std::string why;
    auto loaded = auth::load_ftps_context(config.tls, config.listen.control_interface, why);
    if (!loaded) {
      problem = why;
      return std::nullopt;
    }
    contexts.ftps = std::move(*loaded);
  }
  return contexts;
}

namespace {

bool write_pidfile(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << ::getpid() << "\n";
  return static_cast<bool>(out);
}

}  // namespace

bool start_listening(Server& server, const ServerConfig& config,
                     const std::optional<std::string>& pidfile, spdlog::logger& log) {
  const auto metrics = server.open_metrics();
  if (!metrics) {
    log.critical("cannot open the metrics endpoint on {} port {}: {}", config.metrics.address,
                 config.metrics.port, metrics.error().message());
    return false;
  }
  if (*metrics) {
    log.info("metrics on {} port {}", (*metrics)->address().to_string(), (*metrics)->port());
  }
  const auto endpoint = server.bind();
  if (!endpoint) {
    log.critical("cannot listen on {} port {}: {}", config.listen.control_interface,
                 config.listen.port, endpoint.error().message());
    return false;
  }
  log.info("listening on {} port {}", endpoint->address().to_string(), endpoint->port());
  if (pidfile && !write_pidfile(*pidfile)) {
    log.critical("cannot write pid file {}: {}", *pidfile, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace gridftp::server
