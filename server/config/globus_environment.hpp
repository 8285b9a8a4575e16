// What globus-gridftp-server takes from its environment and from the standard grid-security
// locations (docs/GLOBUS.md §4), applied to gridftpd's config: the host credential, trusted CAs
// and gridmap; GSI switched on when a host credential is found, unless the config decided;
// GLOBUS_TCP_PORT_RANGE / GLOBUS_TCP_SOURCE_RANGE for data sockets; GLOBUS_HOSTNAME for the
// address data connections announce. The config's own values win over the environment. Pure: the
// environment and the file system come in as functions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/config/server_config.hpp"

namespace gridftp::server::globus {

struct EnvironmentView {
  std::function<std::optional<std::string>(std::string_view name)> variable;
  std::function<bool(const std::filesystem::path&)> file_exists;
};

// The process's real environment and file system.
EnvironmentView process_environment();

// Globus's port range syntax: "min,max" or "min max", both 1..65535, min <= max.
std::optional<std::pair<std::uint16_t, std::uint16_t>> parse_port_range(std::string_view text);

// Applies the environment to `config`. Returns problems (a malformed range names its variable);
// `notes` gets one line per decision worth logging ("GSI on: host credential ...").
std::vector<std::string> apply_globus_environment(ServerConfig& config, const EnvironmentView& env,
                                                  std::vector<std::string>& notes);

}  // namespace gridftp::server::globus
