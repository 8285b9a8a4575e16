// Verb → handler, one row per verb (style: commands are data, not an if/else chain).
#pragma once

#include "protocol/control/command.hpp"
#include "server/session/control_session.hpp"

namespace gridftp::server {

// Null when the verb is known but not served by this server.
ControlSession::Handler handler_for(protocol::control::Verb verb);

}  // namespace gridftp::server
