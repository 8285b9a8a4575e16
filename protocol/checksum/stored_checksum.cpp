#include "protocol/checksum/stored_checksum.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace gridftp::protocol::checksum {
namespace {

constexpr std::string_view kVersionTag = "v1 ";
constexpr std::size_t kNanosecondDigits = 9;

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads an unsigned decimal up to `stop` (no sign, at least one digit) and moves past `stop`.
template <typename Integer>
bool take_number(std::string_view& text, char stop, Integer& value) {
  const auto at = text.find(stop);
  if (at == std::string_view::npos || at == 0) return false;
  const auto digits = text.substr(0, at);
  if (!std::all_of(digits.begin(), digits.end(), is_digit)) return false;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return false;
  text.remove_prefix(at + 1);
  return true;
}

}  // namespace

std::string format_stored_checksum(const StoredChecksum& stored) {
  char fields[64];
  std::snprintf(fields, sizeof fields, "%llu %lld.%09u ",
                static_cast<unsigned long long>(stored.version.size_bytes),
                static_cast<long long>(stored.version.mtime_seconds),
                static_cast<unsigned>(stored.version.mtime_nanoseconds));
  return std::string(kVersionTag) + fields + stored.hex;
}

std::optional<StoredChecksum> parse_stored_checksum(std::string_view text) {
  if (!text.starts_with(kVersionTag)) return std::nullopt;
  text.remove_prefix(kVersionTag.size());
  StoredChecksum stored;
  // Times before 1970 are not written by us (no negative mtime is stored): no sign is accepted.
  if (!take_number(text, ' ', stored.version.size_bytes)) return std::nullopt;
  if (!take_number(text, '.', stored.version.mtime_seconds)) return std::nullopt;
  if (text.size() <= kNanosecondDigits || text[kNanosecondDigits] != ' ') return std::nullopt;
  if (!take_number(text, ' ', stored.version.mtime_nanoseconds)) return std::nullopt;
  if (stored.version.mtime_nanoseconds >= 1'000'000'000U) return std::nullopt;
  if (text.empty() || text.size() > kMaxStoredHexDigits) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), is_lower_hex)) return std::nullopt;
  stored.hex = std::string(text);
  return stored;
}

}  // namespace gridftp::protocol::checksum
