// What a Globus-style start (globus-gridftp-server's command line or config files, no gridftpd
// TOML) logs unless told otherwise: Globus's default level, ERROR (man globus-gridftp-server,
// -log-level), and its transfer-log lines (NetLogger, server/logging/netlogger_line.hpp). Applied
// before the Globus settings, so -d/log_level and -Z/log_transfer still decide.
#pragma once

#include "server/config/server_config.hpp"

namespace gridftp::server {

void apply_globus_logging_defaults(LoggingConfig& logging);

}  // namespace gridftp::server
