// A set of half-open byte ranges [start, end) kept sorted and merged, with the MODE E REST /
// range-marker list form "0-4980736,5242880-6000000" (docs/WIRE.md §4.2, §4.3; Globus parses it the
// same way: length = end - start). Tracks what a receiver holds; it does not know file sizes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::restart {

struct Range {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  // exclusive

  std::uint64_t length() const { return end - start; }
  friend bool operator==(const Range&, const Range&) = default;
};

class ByteRangeSet {
 public:
  // Adds [start, end), merging with overlapping and adjacent ranges. Empty or inverted ranges
  // (start >= end) change nothing.
  void insert(std::uint64_t start, std::uint64_t end);
  void insert(const Range& range) { insert(range.start, range.end); }
  void insert(const ByteRangeSet& other);

  // True when every byte of [offset, offset + length) is present. An empty range is contained;
  // a range whose end overflows is not.
  bool contains(std::uint64_t offset, std::uint64_t length) const;

  std::uint64_t covered_bytes() const;

  // The sub-ranges of [start, end) that are not present, in order. Empty when start >= end.
  std::vector<Range> gaps(std::uint64_t start, std::uint64_t end) const;

  // Sorted, disjoint, non-adjacent, non-empty.
  const std::vector<Range>& ranges() const { return ranges_; }
  bool empty() const { return ranges_.empty(); }
  void clear() { ranges_.clear(); }

  // "0-100,200-300"; "" for the empty set (Globus never sends "0-0").
  std::string format_range_list() const;

  friend bool operator==(const ByteRangeSet&, const ByteRangeSet&) = default;

 private:
  std::vector<Range> ranges_;
};

// Parses "a-b,c-d,..." strictly: decimal digits only (no sign, no spaces, no empty items), each
// start < end, each value fits in 64 bits. Ranges may overlap or come in any order; they merge.
// Errors: protocol::Errc::BadArgument for anything else, including the empty string.
// Note: Globus 13.24 is laxer (it accepts "0-100, 200-300", "100-50" and "0-0"); we are not.
Result<ByteRangeSet> parse_range_list(std::string_view text);

}  // namespace gridftp::protocol::restart
