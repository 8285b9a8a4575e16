#include "protocol/control/retr_options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <optional>

#include "protocol/core/decimal.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// "start[,min[,max]]": Globus uses only the first number.
std::optional<unsigned> parse_parallelism(std::string_view value) {
  std::optional<std::uint64_t> first;
  int fields = 0;
  while (true) {
    const auto comma = value.find(',');
    const auto number = parse_decimal(value.substr(0, comma));
    if (!number || ++fields > 3) return std::nullopt;
    if (!first) first = number;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  if (*first < 1 || *first > kMaxParallelism) return std::nullopt;
  return static_cast<unsigned>(*first);
}

std::optional<std::string> parse_stripe_layout(std::string_view value) {
  for (const std::string_view layout : {"Blocked", "Partitioned"}) {
    if (equals_ignoring_case(value, layout)) return std::string(layout);
  }
  return std::nullopt;
}

std::optional<unsigned> parse_seconds(std::string_view value) {
  const auto seconds = parse_decimal(value);
  if (!seconds || *seconds > std::numeric_limits<unsigned>::max()) return std::nullopt;
  return static_cast<unsigned>(*seconds);
}

// Applies one "key=value" (without its ';'); false when the key or value is bad.
bool apply_option(std::string_view option, RetrOptions& options) {
  const auto equals = option.find('=');
  if (equals == std::string_view::npos) return false;
  const auto key = option.substr(0, equals);
  const auto value = option.substr(equals + 1);
  if (equals_ignoring_case(key, "Parallelism")) {
    options.parallelism = parse_parallelism(value);
    return options.parallelism.has_value();
  }
  if (equals_ignoring_case(key, "StripeLayout")) {
    options.stripe_layout = parse_stripe_layout(value);
    return options.stripe_layout.has_value();
  }
  if (equals_ignoring_case(key, "BlockSize")) {
    const auto size = parse_decimal(value);
    if (!size || *size == 0) return false;
    options.block_size = size;
    return true;
  }
  if (equals_ignoring_case(key, "markers")) {
    options.marker_seconds = parse_seconds(value);
    return options.marker_seconds.has_value();
  }
  return false;
}

}  // namespace

Result<RetrOptions> parse_retr_options(std::string_view text) {
  const auto bad = make_error(make_error_code(Errc::BadArgument));
  if (text.empty()) return bad;
  RetrOptions options;
  while (!text.empty()) {
    const auto semicolon = text.find(';');
    if (semicolon == std::string_view::npos) return bad;
    if (!apply_option(text.substr(0, semicolon), options)) return bad;
    text.remove_prefix(semicolon + 1);
  }
  return options;
}

}  // namespace gridftp::protocol::control
