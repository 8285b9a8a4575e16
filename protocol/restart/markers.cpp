#include "protocol/restart/markers.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::restart {
namespace {

constexpr std::string_view kRangeMarkerPrefix = "Range Marker";
constexpr std::string_view kStripeBytesLabel = "Stripe Bytes Transferred:";

bool is_space(char c) { return c == ' ' || c == '\t'; }

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         });
}

std::string_view skip_reply_code(std::string_view text) {
  if (text.size() >= 4 && text.substr(0, 3) == "111" && (text[3] == ' ' || text[3] == '-')) {
    text.remove_prefix(4);
  }
  return text;
}

// "1795311512.3" from tenths; handles negative times although no clock should produce them.
std::string format_tenths(std::int64_t tenths) {
  const bool negative = tenths < 0;
  // Unsigned arithmetic so that INT64_MIN has a magnitude.
  const auto magnitude =
      negative ? 0 - static_cast<std::uint64_t>(tenths) : static_cast<std::uint64_t>(tenths);
  std::string text = negative ? "-" : "";
  text += std::to_string(magnitude / 10);
  text += '.';
  text += static_cast<char>('0' + magnitude % 10);
  return text;
}

}  // namespace

std::string format_range_marker_text(const ByteRangeSet& ranges) {
  return std::string(kRangeMarkerPrefix) + ' ' + ranges.format_range_list();
}

std::vector<std::string> perf_marker_lines(std::int64_t timestamp_tenths, unsigned stripe_index,
                                           std::uint64_t stripe_bytes, unsigned stripe_count) {
  return {
      "Perf Marker",
      " Timestamp:  " + format_tenths(timestamp_tenths),
      " Stripe Index: " + std::to_string(stripe_index),
      " Stripe Bytes Transferred: " + std::to_string(stripe_bytes),
      " Total Stripe Count: " + std::to_string(stripe_count),
      "End.",
  };
}

Result<ByteRangeSet> parse_range_marker(std::string_view line_text) {
  auto text = skip_reply_code(line_text);
  if (!starts_with_ignoring_case(text, kRangeMarkerPrefix)) {
    return make_error(make_error_code(Errc::BadArgument));
  }
  text.remove_prefix(kRangeMarkerPrefix.size());
  if (text.empty() || !is_space(text.front()))
    return make_error(make_error_code(Errc::BadArgument));
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  return parse_range_list(text);
}

std::optional<std::uint64_t> parse_perf_marker_bytes(const std::vector<std::string>& lines) {
  for (const std::string_view line : lines) {
    const auto at = line.find(kStripeBytesLabel);
    if (at == std::string_view::npos) continue;
    auto rest = line.substr(at + kStripeBytesLabel.size());
    while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
    std::uint64_t bytes = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), bytes);
    if (ec != std::errc{} || end == rest.data()) return std::nullopt;
    if (end != rest.data() + rest.size() && !is_space(*end)) return std::nullopt;
    return bytes;
  }
  return std::nullopt;
}

}  // namespace gridftp::protocol::restart
