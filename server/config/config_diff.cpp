#include "server/config/config_diff.hpp"

#include <map>
#include <sstream>
#include <utility>

namespace gridftp::server {
namespace {

// "section.key" -> the value's text, from format_config()'s "[section]" and "key = value" lines,
// in order of appearance.
std::vector<std::pair<std::string, std::string>> settings_of(const ServerConfig& config) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream text(format_config(config));
  std::string line;
  std::string section;
  while (std::getline(text, line)) {
    if (line.starts_with("[") && line.ends_with("]")) {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const auto equals = line.find(" = ");
    if (equals == std::string::npos) continue;
    out.emplace_back(section + "." + line.substr(0, equals), line.substr(equals + 3));
  }
  return out;
}

}  // namespace

std::vector<std::string> changed_keys(const ServerConfig& before, const ServerConfig& after) {
  const auto old_settings = settings_of(before);
  std::map<std::string, std::string> new_settings;
  for (auto& [key, value] : settings_of(after)) new_settings.emplace(key, value);
  std::vector<std::string> changed;
  for (const auto& [key, value] : old_settings) {
    const auto found = new_settings.find(key);
    if (found == new_settings.end() || found->second != value) changed.push_back(key);
  }
  return changed;
}

}  // namespace gridftp::server
