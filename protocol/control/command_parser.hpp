// Turns one control line (CR LF already removed) into a Command. Pure; no session state.
#pragma once

#include <optional>
#include <string_view>

#include "protocol/control/command.hpp"
#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

// Errors: Errc::EmptyCommand for a blank line, Errc::UnknownVerb for a verb we do not know.
Result<Command> parse_command(std::string_view line);

// Case-insensitive lookup of a verb name; nullopt when unknown.
std::optional<Verb> find_verb(std::string_view name);

}  // namespace gridftp::protocol::control
