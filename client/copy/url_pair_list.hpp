// The -f file of globus-url-copy: one "source dest" pair per line, blank lines and '#' comments
// skipped. Pure; the URLs themselves are parsed later by parse_url().
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::client {

struct UrlPair {
  std::string source;
  std::string dest;
};

// Errors: Errc::BadArgument when a line does not hold exactly two words; `bad_line` (1-based)
// then names it.
Result<std::vector<UrlPair>> parse_url_pairs(std::string_view text, std::size_t& bad_line);

}  // namespace gridftp::client
