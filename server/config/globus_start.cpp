#include "server/config/globus_start.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "server/logging/globus_logging_defaults.hpp"

namespace gridftp::server::globus {

bool environment_names_globus(const EnvironmentView& env) {
  constexpr std::array<std::string_view, 7> kVariables{
      "X509_USER_CERT",        "X509_USER_KEY",           "X509_CERT_DIR",  "GRIDMAP",
      "GLOBUS_TCP_PORT_RANGE", "GLOBUS_TCP_SOURCE_RANGE", "GLOBUS_HOSTNAME"};
  return std::any_of(kVariables.begin(), kVariables.end(), [&](std::string_view name) {
    const auto value = env.variable(name);
    return value && !value->empty();
  });
}

bool command_line_names_globus(std::span<const Setting> command_line) {
  constexpr std::array<std::string_view, 6> kOnlyWhere{"help",     "longhelp",   "version",
                                                       "versions", "configfile", "config_dir"};
  return std::any_of(command_line.begin(), command_line.end(), [&](const Setting& s) {
    return std::find(kOnlyWhere.begin(), kOnlyWhere.end(), s.key) == kOnlyWhere.end();
  });
}

ServerConfig globus_site_defaults() {
  ServerConfig config;  // its member defaults: no anonymous, no FTPS, GSI by the credential
  config.listen.control_interface = "::";
  apply_globus_logging_defaults(config.logging);  // under what -d and -Z then say
  return config;
}

}  // namespace gridftp::server::globus
