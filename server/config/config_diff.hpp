// Which settings differ between two configs, as "section.key" names: what SIGHUP reports when a
// re-read config changes settings that only a restart applies.
#pragma once

#include <string>
#include <vector>

#include "server/config/server_config.hpp"

namespace gridftp::server {

// The keys whose values differ (a key only one side has counts as changed).
std::vector<std::string> changed_keys(const ServerConfig& before, const ServerConfig& after);

}  // namespace gridftp::server
