// The Globus tools spell long options with one dash (-port, -vb); CLI11 needs two. This rewrites
// the known names before CLI11 sees argv, so existing command lines carry over. Pure.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gridftp {

// Every argument that is "-name" or "-name=value" with `name` in `long_names` gains a second dash.
// Values, unknown words, single-letter flags and everything after "--" pass unchanged.
std::vector<std::string> normalize_long_options(std::span<const std::string_view> arguments,
                                                std::span<const std::string_view> long_names);

}  // namespace gridftp
