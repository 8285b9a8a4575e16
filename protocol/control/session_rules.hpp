// What each login phase allows (RFC 959 §5.4 sequencing). Pure; the session keeps the phase.
#pragma once

#include "protocol/control/command.hpp"
#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

enum class LoginPhase {
  AwaitingUser,      // connected; USER not yet given
  AwaitingPassword,  // USER accepted, PASS expected
  LoggedIn,
};

// Errors: Errc::NotLoggedIn when the verb needs a login the phase lacks, Errc::BadSequence for
// PASS without USER.
Result<void> check_allowed(Verb verb, LoginPhase phase);

// On a server that requires security (GSI, or FTPS), what an unauthenticated client may send:
// the negotiation itself, FEAT and QUIT. Everything else is 530 (Globus answers "530 Must
// perform GSSAPI authentication.").
bool allowed_before_security(Verb verb);

// RFC 2228 wrappers: once the control channel is protected every command must arrive in one.
bool is_protected_command(Verb verb);

// Verbs that may run while a transfer is in progress instead of waiting for it (RFC 959 §4.1.3:
// ABOR and STAT are answered at once; QUIT closes after the transfer).
bool runs_during_transfer(Verb verb);
// The same for a whole command: also SITE UDPX (RATE and STAT steer and watch the running UDPX
// transfer, docs/UDPX.md §8).
bool runs_during_transfer(const Command& command);

}  // namespace gridftp::protocol::control
