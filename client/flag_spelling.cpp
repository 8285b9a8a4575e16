#include "client/flag_spelling.hpp"

#include <algorithm>
#include <array>

namespace gridftp::client {
namespace {

// globus-url-copy's multi-letter flags that gridcp accepts (guc -help, GCT 6.2).
constexpr std::array<std::string_view, 19> kLongFlags{
    "vb",         "verbose",     "quiet",    "dbg",    "debugftp",        "list",
    "cd",         "create-dest", "parallel", "tcp-bs", "tcp-buffer-size", "bs",
    "block-size", "recurse",     "help",     "usage",  "version",         "stall-timeout",
    "st",
};

}  // namespace

bool is_single_dash_long_flag(std::string_view name) {
  return std::find(kLongFlags.begin(), kLongFlags.end(), name) != kLongFlags.end();
}

std::vector<std::string> normalize_flag_spelling(const std::vector<std::string_view>& arguments) {
  std::vector<std::string> out;
  out.reserve(arguments.size());
  bool after_separator = false;
  for (const auto argument : arguments) {
    if (argument == "--") {
      after_separator = true;
    }
    const bool single_dash = argument.size() > 2 && argument[0] == '-' && argument[1] != '-';
    if (after_separator || !single_dash) {
      out.emplace_back(argument);
      continue;
    }
    const auto name = argument.substr(1, argument.find('=') - 1);
    if (is_single_dash_long_flag(name)) {
      out.push_back("-" + std::string(argument));
    } else {
      out.emplace_back(argument);
    }
  }
  return out;
}

}  // namespace gridftp::client
