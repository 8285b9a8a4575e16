#include "server/startup.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/control/virtual_path.hpp"
#include "server/config/embedded_config.hpp"
#include "server/config/globus_start.hpp"
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

}  // namespace gridftp::server
