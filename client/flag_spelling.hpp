// globus-url-copy spells long options with one dash (-vb, -tcp-bs); CLI11 needs two. This rewrites
// the known ones before CLI11 sees argv. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gridftp::client {

// Returns the arguments with every known single-dash long flag ("-vb", "-tcp-bs=1M") given two
// dashes. Unknown words, single-letter flags, values and everything after "--" pass unchanged,
// so a file named "-vb" can still be given after "--".
std::vector<std::string> normalize_flag_spelling(const std::vector<std::string_view>& arguments);

// True for the flag names (without dashes) that normalize_flag_spelling rewrites.
bool is_single_dash_long_flag(std::string_view name);

}  // namespace gridftp::client
