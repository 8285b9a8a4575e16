#include "server/startup.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "protocol/control/virtual_path.hpp"

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

std::vector<std::string> apply_restrict_paths(const std::string& spec, AnonymousConfig& anonymous) {
  std::vector<std::string> problems;
  std::vector<std::pair<std::string, std::string>> entries;  // (rights, path)
  std::stringstream stream(spec);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) continue;
    const auto slash = item.find('/');
    if (slash == std::string::npos) {
      problems.push_back(fmt::format("-restrict-paths entry '{}' is not an absolute path", item));
      continue;
    }
    entries.emplace_back(item.substr(0, slash), item.substr(slash));
  }
  std::filesystem::path root;
  for (const auto& [rights, path] : entries) {
    if (rights != "N" && root.empty()) root = path;
  }
  if (root.empty()) {
    problems.emplace_back("-restrict-paths names no readable path");
    return problems;
  }
  anonymous.root = root;
  anonymous.writable.clear();
  for (const auto& [rights, path] : entries) {
    if (rights != "W" && rights != "RW") continue;
    const auto relative = std::filesystem::path(path).lexically_relative(root).string();
    if (relative.empty() || relative.starts_with("..")) {
      problems.push_back(fmt::format("-restrict-paths writable path {} is outside {}", path, root.string()));
    } else {
      anonymous.writable.push_back(relative == "." ? "/" : relative);
    }
  }
  return problems;
}

std::vector<std::string> load_accounts(const AccountsConfig& config, std::vector<auth::Account>& accounts) {
  if (config.password_file.empty()) return {};
  auto text = auth::read_password_file(config.password_file);
  if (!text) {
    return {fmt::format("accounts.password_file {}: {}", config.password_file.string(), text.error().message())};
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
  if (ec) problems.push_back(fmt::format("cannot create {}: {}", config.anonymous.root.string(), ec.message()));
  for (const auto& area : config.anonymous.writable) {
    const auto normalized = protocol::control::resolve_virtual_path("/", area);
    if (!normalized || *normalized == "/") continue;
    std::filesystem::create_directories(config.anonymous.root / normalized->substr(1), ec);
    if (ec) problems.push_back(fmt::format("cannot create writable area {}: {}", area, ec.message()));
  }
  return problems;
}

}  // namespace gridftp::server
