// Who a gsiftp:// server must prove to be before anything is delegated to it (docs/WIRE.md
// §5.4): by default the URL's host, named by its certificate; with globus-url-copy's -s, -ss or
// -ds, a certificate subject the user names instead, so that a server reached through a DNS
// alias or a bare address can still be checked. Pure: works on the slash DN GsiHandshake reports.
#pragma once

#include <string>
#include <string_view>

namespace gridftp::client {

struct ExpectedServer {
  std::string host;     // the URL's host
  std::string subject;  // "/O=Grid/CN=host/dtn1.example.org"; empty: check `host` instead
};

// True when the certificate's DN is `expected.subject` (ASCII case aside, as OpenSSL compares
// names), or, with no subject given, when it names `expected.host`.
bool server_identity_matches(std::string_view peer_dn, const ExpectedServer& expected);

// Why server_identity_matches said no, for the user: which certificate, and what was expected.
std::string server_identity_mismatch(std::string_view peer_dn, const ExpectedServer& expected);

}  // namespace gridftp::client
