// The FEAT reply (RFC 2389) and the HELP command list. The labels the Globus client reacts to
// are in docs/WIRE.md §1.3; a label appears here only when the server implements it.
#pragma once

#include "protocol/control/reply.hpp"

namespace gridftp::protocol::control {

// `gsi`: the server offers AUTH GSSAPI, so it lists DCAU (without the label globus-url-copy
// assumes DCAU N and skips the data-channel handshake).
// `tls`: FTPS is offered (RFC 4217 lists AUTH TLS, PBSZ and PROT).
// `udpx`: the UDPX data channel is offered (with GSI, or where the config allows it without).
Reply feat_reply(bool gsi = false, bool tls = false, bool udpx = false);
Reply help_reply();
Reply site_help_reply();

}  // namespace gridftp::protocol::control
