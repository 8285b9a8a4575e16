#include "protocol/core/long_options.hpp"

#include <algorithm>

namespace gridftp {

std::vector<std::string> normalize_long_options(std::span<const std::string_view> arguments,
                                                std::span<const std::string_view> long_names) {
  std::vector<std::string> out;
  out.reserve(arguments.size());
  bool after_separator = false;
  for (const auto argument : arguments) {
    if (argument == "--") after_separator = true;
    const bool single_dash = argument.size() > 2 && argument[0] == '-' && argument[1] != '-';
    const auto name = single_dash ? argument.substr(1, argument.find('=') - 1) : std::string_view();
    const bool known = std::find(long_names.begin(), long_names.end(), name) != long_names.end();
    if (!after_separator && single_dash && known) {
      out.push_back("-" + std::string(argument));
    } else {
      out.emplace_back(argument);
    }
  }
  return out;
}

}  // namespace gridftp
