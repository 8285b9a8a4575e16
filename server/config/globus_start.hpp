// Whether gridftpd was started the way a site starts globus-gridftp-server, and the defaults such
// a start begins from (docs/GLOBUS.md §7). A Globus-style start gets Globus's defaults, not
// gridftpd's built-in demo config: a site that swaps the binary must not find anonymous logins,
// FTPS or a loopback-only listener it never asked for. Pure.
#pragma once

#include <span>

#include "server/config/globus_environment.hpp"
#include "server/config/globus_options.hpp"
#include "server/config/server_config.hpp"

namespace gridftp::server::globus {

// The environment holds what a Globus site sets for its server: X509_USER_CERT/KEY,
// X509_CERT_DIR, GRIDMAP, GLOBUS_TCP_PORT_RANGE, GLOBUS_TCP_SOURCE_RANGE or GLOBUS_HOSTNAME.
bool environment_names_globus(const EnvironmentView& env);

// The command line sets something beyond -help, -version, -c and -C (which only say what to
// print or where the config is).
bool command_line_names_globus(std::span<const Setting> command_line);

// globus-gridftp-server's defaults where gridftpd's built-in config says otherwise: every
// interface ("::", IPv4 too), no anonymous logins, no FTPS; GSI decided by the host credential
// and then required of every login (ControlSession::security_required); Globus's log level and
// transfer-log format.
ServerConfig globus_site_defaults();

}  // namespace gridftp::server::globus
