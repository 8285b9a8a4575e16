// Does a GSI server's certificate name the host we meant to reach (docs/WIRE.md §5.4)? Globus's
// default (STRICT_RFC2818) takes the CN as "<host>" or "host/<host>" when there is no SAN. Pure:
// it works on the slash DN GsiHandshake reports; SAN dNSNames are not visible at this level.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gridftp::security {

// The value of the last CN in a slash DN ("/O=Grid/CN=host/x.org" gives "host/x.org": a '/'
// starts a new attribute only when "name=" follows it). nullopt when the DN has no CN.
std::optional<std::string> last_common_name(std::string_view slash_dn);

// True when the last CN of `slash_dn` is `host` or "host/<host>", ASCII case-insensitively.
// A wildcard or an empty host never matches.
bool certificate_names_host(std::string_view slash_dn, std::string_view host);

}  // namespace gridftp::security
