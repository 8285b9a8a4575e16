// A session's Globus-style path restrictions ([server] restrict_paths, -restrict-paths;
// docs/GLOBUS.md §3): the configured spec made concrete for the logged-in account, whose home
// directory `~` and `$HOME` stand for and whose name `$USER` stands for.
#pragma once

#include <string>
#include <string_view>

#include "protocol/control/restrict_paths.hpp"
#include "protocol/core/result.hpp"
#include "server/auth/authenticator.hpp"

namespace gridftp::server::auth {

// No spec: no restriction. The home is the account's passwd entry, or the session's root for an
// account the system does not know (anonymous sessions without a system account).
Result<protocol::control::PathRules> path_rules_for(std::string_view spec, const UserContext& user,
                                                    std::string& why);

}  // namespace gridftp::server::auth
