#include "protocol/restart/byte_range_set.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>
#include <optional>

#include "protocol/core/decimal.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::protocol::restart {
namespace {

std::optional<Range> parse_range(std::string_view item) {
  const auto dash = item.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const auto start = parse_decimal(item.substr(0, dash));
  const auto end = parse_decimal(item.substr(dash + 1));
  if (!start || !end || *start >= *end) return std::nullopt;
  return Range{*start, *end};
}

}  // namespace

void ByteRangeSet::insert(std::uint64_t start, std::uint64_t end) {
  if (start >= end) return;
  // First range that could touch [start, end): its end reaches start (adjacent counts).
  auto first =
      std::lower_bound(ranges_.begin(), ranges_.end(), start,
                       [](const Range& range, std::uint64_t value) { return range.end < value; });
  auto last = first;
  while (last != ranges_.end() && last->start <= end) {
    start = std::min(start, last->start);
    end = std::max(end, last->end);
    ++last;
  }
  const auto at = ranges_.erase(first, last);
  ranges_.insert(at, Range{start, end});
}

void ByteRangeSet::insert(const ByteRangeSet& other) {
  for (const auto& range : other.ranges_) insert(range);
}

bool ByteRangeSet::contains(std::uint64_t offset, std::uint64_t length) const {
  if (length == 0) return true;
  if (length > std::numeric_limits<std::uint64_t>::max() - offset) return false;
  const auto end = offset + length;
  // The only range that can contain offset is the last one starting at or before it.
  auto after =
      std::upper_bound(ranges_.begin(), ranges_.end(), offset,
                       [](std::uint64_t value, const Range& range) { return value < range.start; });
  if (after == ranges_.begin()) return false;
  const auto& candidate = *std::prev(after);
  return candidate.end >= end;
}

std::uint64_t ByteRangeSet::covered_bytes() const {
  std::uint64_t total = 0;
  for (const auto& range : ranges_) total += range.length();
  return total;
}

std::vector<Range> ByteRangeSet::gaps(std::uint64_t start, std::uint64_t end) const {
  std::vector<Range> missing;
  if (start >= end) return missing;
  auto cursor = start;
  for (const auto& range : ranges_) {
    if (range.end <= cursor) continue;
    if (range.start >= end) break;
    if (range.start > cursor) missing.push_back(Range{cursor, range.start});
    cursor = range.end;
    if (cursor >= end) return missing;
  }
  missing.push_back(Range{cursor, end});
  return missing;
}

std::string ByteRangeSet::format_range_list() const {
  std::string text;
  for (const auto& range : ranges_) {
    if (!text.empty()) text += ',';
    text += std::to_string(range.start);
    text += '-';
    text += std::to_string(range.end);
  }
  return text;
}

Result<ByteRangeSet> parse_range_list(std::string_view text) {
  const auto bad = make_error(make_error_code(Errc::BadArgument));
  if (text.empty()) return bad;
  ByteRangeSet set;
  while (true) {
    const auto comma = text.find(',');
    const auto range = parse_range(text.substr(0, comma));
    if (!range) return bad;
    set.insert(*range);
    if (comma == std::string_view::npos) return set;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace gridftp::protocol::restart
