// The client's side of the data-address exchange: parsing of the passive replies (227 PASV, 229
// EPSV) and formatting of the PORT and EPRT arguments (RFC 959 §4.1.2, RFC 2428, docs/WIRE.md §3).
// Pure; built on the codec the server uses (host_port). `address` is empty when an EPSV reply left
// it out (plain RFC 2428): the control connection's peer is meant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/control/host_port.hpp"
#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

// Parses the text of a 227 reply, "Entering Passive Mode (h1,h2,h3,h4,p1,p2)". Following RFC 1123
// §4.1.2.6 it scans for the first digit instead of trusting the parentheses. Errors:
// Errc::BadHostPort when there are not six numbers in 0..255 separated by commas.
Result<HostPort> parse_pasv_reply(std::string_view text);

// Parses the text of a 229 reply, "Entering Extended Passive Mode (|||port|)", also the Globus
// form with an address "(|2|::1|port|)" (docs/WIRE.md §3.1). Errors: Errc::BadHostPort for a
// missing or malformed "(dddd)" group or a port outside 1..65535; Errc::UnsupportedAddressFamily
// for a protocol other than 1 or 2.
Result<HostPort> parse_epsv_reply(std::string_view text);

// "h1,h2,h3,h4,p1,p2" for the client's PORT. Errors: Errc::BadHostPort when the address is not
// dotted IPv4.
Result<std::string> port_argument_for(const HostPort& address);

// "|1|1.2.3.4|port|" or "|2|::1|port|" for EPRT; the family follows from the host's spelling.
// Errors: Errc::BadHostPort when the address is empty.
Result<std::string> eprt_argument_for(const HostPort& address);

}  // namespace gridftp::protocol::control
