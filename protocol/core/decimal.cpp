#include "protocol/core/decimal.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace gridftp {

std::optional<std::uint64_t> parse_decimal(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_scaled_decimal(std::string_view text, std::uint64_t unit) {
  std::uint64_t scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k':
      case 'K':
        scale = unit;
        break;
      case 'm':
      case 'M':
        scale = unit * unit;
        break;
      case 'g':
      case 'G':
        scale = unit * unit * unit;
        break;
      default:
        break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  const auto value = parse_decimal(text);
  if (!value || *value > std::numeric_limits<std::uint64_t>::max() / scale) return std::nullopt;
  return *value * scale;
}

}  // namespace gridftp
