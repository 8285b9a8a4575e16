#include "protocol/control/session_rules.hpp"

#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"

namespace gridftp::protocol::control {
namespace {

// Commands a client may send before it is logged in: the login itself, security negotiation
// (RFC 2228) and the harmless discovery commands clients issue first.
bool allowed_before_login(Verb verb) {
  switch (verb) {
    case Verb::User:
    case Verb::Pass:
    case Verb::Quit:
    case Verb::Feat:
    case Verb::Syst:
    case Verb::Help:
    case Verb::Noop:
    case Verb::Opts:
    case Verb::Auth:
    case Verb::Adat:
    case Verb::Pbsz:
    case Verb::Prot:
    case Verb::Lang:
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<void> check_allowed(Verb verb, LoginPhase phase) {
  if (phase == LoginPhase::LoggedIn) return {};
  if (verb == Verb::Pass && phase == LoginPhase::AwaitingUser) return make_error(Errc::BadSequence);
  if (allowed_before_login(verb)) return {};
  return make_error(Errc::NotLoggedIn);
}

bool allowed_before_security(Verb verb) {
  return verb == Verb::Auth || verb == Verb::Adat || verb == Verb::Feat || verb == Verb::Quit;
}

bool is_protected_command(Verb verb) {
  return verb == Verb::Enc || verb == Verb::Mic || verb == Verb::Conf;
}

bool runs_during_transfer(Verb verb) {
  return verb == Verb::Abor || verb == Verb::Stat || verb == Verb::Noop;
}

bool runs_during_transfer(const Command& command) {
  if (runs_during_transfer(command.verb)) return true;
  if (command.verb != Verb::Site) return false;
  const std::string_view argument = command.argument;
  return argument.size() >= 5 && ascii_upper(std::string(argument.substr(0, 4))) == "UDPX" &&
         argument[4] == ' ';
}

}  // namespace gridftp::protocol::control
