#include "server/startup.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

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
  struct Entry {
    bool readable;
    bool writable;
    std::filesystem::path path;
  };
  std::vector<Entry> entries;
  std::stringstream stream(spec);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) continue;
    const auto slash = item.find('/');
    if (slash == std::string::npos) {
      problems.push_back(fmt::format("-restrict-paths entry '{}' is not an absolute path", item));
      continue;
    }
    // Globus's prefixes; no prefix means read and write, as globus-gridftp-server takes it.
    const auto rights = item.substr(0, slash);
    if (rights != "" && rights != "R" && rights != "W" && rights != "RW" && rights != "N") {
      problems.push_back(
          fmt::format("-restrict-paths entry '{}': prefix must be R, W, RW or N", item));
      continue;
    }
    const bool none = rights == "N";
    entries.push_back({!none && rights != "W",
                       !none && (rights.empty() || rights.find('W') != std::string::npos),
                       std::filesystem::path(item.substr(slash)).lexically_normal()});
  }
  const auto root = std::find_if(entries.begin(), entries.end(),
                                 [](const Entry& e) { return e.readable || e.writable; });
  if (root == entries.end()) {
    problems.emplace_back("-restrict-paths names no readable path");
    return problems;
  }
  anonymous.root = root->path;
  anonymous.writable.clear();
  for (const auto& entry : entries) {
    if (!entry.writable) continue;
    const auto relative = entry.path.lexically_relative(root->path);
    // Judge by the first component: "..incoming" is a name inside the root, ".." is outside it.
    if (relative.empty() || *relative.begin() == "..") {
      problems.push_back(fmt::format("-restrict-paths writable path {} is outside {}",
                                     entry.path.string(), root->path.string()));
    } else {
      anonymous.writable.push_back(relative.string());  // "." (the whole root) is relative too
    }
  }
  return problems;
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
  for (const auto& area : config.anonymous.writable) {
    const auto normalized = protocol::control::resolve_virtual_path("/", area);
    if (!normalized || *normalized == "/") continue;
    std::filesystem::create_directories(config.anonymous.root / normalized->substr(1), ec);
    if (ec)
      problems.push_back(fmt::format("cannot create writable area {}: {}", area, ec.message()));
  }
  return problems;
}

}  // namespace gridftp::server
