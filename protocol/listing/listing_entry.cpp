#include "protocol/listing/listing_entry.hpp"

#include <charconv>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::listing {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != (b[i] | 0x20)) {
      return false;
    }
  }
  return true;
}

void apply_fact(std::string_view key, std::string_view value, ListingEntry& entry) {
  if (equals_ignoring_case(key, "type")) {
    entry.is_directory = equals_ignoring_case(value, "dir") ||
                         equals_ignoring_case(value, "cdir") || equals_ignoring_case(value, "pdir");
    entry.is_self_or_parent =
        equals_ignoring_case(value, "cdir") || equals_ignoring_case(value, "pdir");
    return;
  }
  if (equals_ignoring_case(key, "size")) {
    std::uint64_t bytes = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
    if (ec == std::errc{} && end == value.data() + value.size()) {
      entry.size_bytes = bytes;
    }
    return;
  }
  if (equals_ignoring_case(key, "modify")) {
    entry.modify_seconds = parse_time_val(value);
  }
}

std::optional<int> digits_at(std::string_view text, std::size_t offset, std::size_t count) {
  int value = 0;
  const auto* first = text.data() + offset;
  const auto [end, ec] = std::from_chars(first, first + count, value);
  if (ec != std::errc{} || end != first + count || value < 0) {
    return std::nullopt;
  }
  return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(int year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int era = (year >= 0 ? year : year - 399) / 400;
  const int year_of_era = year - era * 400;
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return std::int64_t{era} * 146097 + day_of_era - 719468;
}

}  // namespace

std::optional<std::int64_t> parse_time_val(std::string_view text) {
  constexpr std::size_t kDigits = 14;  // YYYYMMDDHHMMSS
  if (text.size() < kDigits || (text.size() > kDigits && text[kDigits] != '.')) {
    return std::nullopt;
  }
  const auto year = digits_at(text, 0, 4);
  const auto month = digits_at(text, 4, 2);
  const auto day = digits_at(text, 6, 2);
  const auto hour = digits_at(text, 8, 2);
  const auto minute = digits_at(text, 10, 2);
  const auto second = digits_at(text, 12, 2);
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
      *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  return days_from_civil(*year, *month, *day) * 86400 + std::int64_t{*hour} * 3600 +
         std::int64_t{*minute} * 60 + *second;
}

std::string ListingEntry::display_name() const { return is_directory ? name + '/' : name; }

Result<ListingEntry> parse_mlsd_line(std::string_view line) {
  const auto separator = line.find("; ");
  if (separator == std::string_view::npos || separator + 2 >= line.size()) {
    return make_error(make_error_code(protocol::Errc::BadReply));
  }
  ListingEntry entry;
  entry.name = std::string(line.substr(separator + 2));
  auto facts = line.substr(0, separator + 1);
  while (!facts.empty()) {
    const auto end = facts.find(';');
    const auto fact = facts.substr(0, end);
    const auto equals = fact.find('=');
    if (equals == std::string_view::npos) {
      return make_error(make_error_code(protocol::Errc::BadReply));
    }
    apply_fact(fact.substr(0, equals), fact.substr(equals + 1), entry);
    facts.remove_prefix(end == std::string_view::npos ? facts.size() : end + 1);
  }
  return entry;
}

std::vector<std::string_view> split_listing_lines(std::string_view body) {
  std::vector<std::string_view> out;
  while (!body.empty()) {
    const auto newline = body.find('\n');
    auto line = body.substr(0, newline);
    while (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!line.empty()) {
      out.push_back(line);
    }
    body.remove_prefix(newline == std::string_view::npos ? body.size() : newline + 1);
  }
  return out;
}

}  // namespace gridftp::protocol::listing
