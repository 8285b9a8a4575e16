// Data-channel addresses on the control channel: PORT/PASV (RFC 959 h1,h2,h3,h4,p1,p2) and
// EPRT/EPSV (RFC 2428 |af|addr|port|). Parsing checks syntax only; the caller resolves the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

struct HostPort {
  std::string address;  // dotted IPv4 or IPv6 text
  std::uint16_t port = 0;
  bool is_ipv6 = false;
};

// "h1,h2,h3,h4,p1,p2" → HostPort. Errors: Errc::BadHostPort.
Result<HostPort> parse_port_argument(std::string_view text);
// "|1|1.2.3.4|5282|" or "|2|::1|5282|" (any delimiter in 33..126). Errors: Errc::BadHostPort,
// Errc::UnsupportedAddressFamily for af other than 1 or 2.
Result<HostPort> parse_eprt_argument(std::string_view text);

// "h1,h2,h3,h4,p1,p2" for an IPv4 address text; the PASV reply wraps it in parentheses.
std::string format_port_argument(const HostPort& host_port);
// "|1|addr|port|" / "|2|addr|port|"
std::string format_eprt_argument(const HostPort& host_port);

// A configured endpoint, "host:port", "1.2.3.4:port" or "[::1]:port" (a striping frontend's
// movers): the host (brackets removed; a name is not resolved here) and a port from 1 to
// 65535. Errors: Errc::BadHostPort for no host, no port, or a port out of range.
struct NamedEndpoint {
  std::string host;
  std::uint16_t port = 0;
};
Result<NamedEndpoint> parse_named_endpoint(std::string_view text);

}  // namespace gridftp::protocol::control
