// The client's side of striped data addresses (GFD.20, "SPAS" and "SPOR"): the multi-line 229
// reply to SPAS gives one host-port per stripe, and SPOR sends them back, space-separated, to the
// sender of a third-party transfer. Pure; docs/WIRE.md §3.1 shows the reply as servers send it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocol/control/host_port.hpp"
#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

// The lines of a 229 SPAS reply as the reply parser keeps them ("229-Entering Striped Passive
// Mode.", then " h1,h2,h3,h4,p1,p2" or " |2|::1|port|" per stripe, then "229 End"): the
// stripes' addresses in order. A one-line reply (a server with one address that answers on the
// first line, "229 Entering Striped Passive Mode (h1,...,p2)") gives that one address. Errors:
// Errc::BadHostPort when a stripe line is not an address, or when no address is given.
Result<std::vector<HostPort>> parse_spas_reply(const std::vector<std::string>& lines);

// "h1,h2,h3,h4,p1,p2 h1,..." for SPOR, in stripe order (an IPv6 stripe as "|2|addr|port|").
// Errors: Errc::BadHostPort for an empty list.
Result<std::string> spor_argument_for(const std::vector<HostPort>& stripes);

}  // namespace gridftp::protocol::control
