// Lexical resolution of client paths inside a user's virtual tree, where "/" is the user's root.
// Pure: the kernel still enforces the root on every open (storage/path_resolver), this only
// refuses what is wrong on its face.
#pragma once

#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

// Joins `path` to `cwd` (itself normalized, starting with "/") and folds "." and "..".
// Returns "/" or "/a/b" (no trailing slash). Errors: Errc::PathEscapesRoot when ".." climbs above
// the root, Errc::BadArgument for a NUL byte.
Result<std::string> resolve_virtual_path(std::string_view cwd, std::string_view path);

// As resolve_virtual_path, with a leading "~" (alone or before "/") standing for `home`, the
// user's starting directory, as Globus takes it ("~/data/f").
Result<std::string> resolve_client_path(std::string_view cwd, std::string_view home,
                                        std::string_view path);

// True when `path` equals `area` or lies below it (both normalized).
bool is_within(std::string_view path, std::string_view area);

// The last component ("" for "/") and the parent ("/" for top-level names).
std::string_view base_name(std::string_view path);
std::string_view parent_path(std::string_view path);

}  // namespace gridftp::protocol::control
