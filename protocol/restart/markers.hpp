// Text of the GridFTP restart (111 "Range Marker") and performance (112 "Perf Marker") replies,
// byte-exact as globus-gridftp-server 13.24 writes them (docs/WIRE.md §4.1, §4.2), and the
// client-side parsers for both. Reply codes and CRLF framing belong to the caller
// (reply_formatter).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::protocol::restart {

// "Range Marker 0-3000000" (the caller sends it as "111 Range Marker 0-3000000").
std::string format_range_marker_text(const ByteRangeSet& ranges);

// The lines of a 112 reply, first and last included:
//   {"Perf Marker", " Timestamp:  1795311512.3", " Stripe Index: 0",
//    " Stripe Bytes Transferred: 3000000", " Total Stripe Count: 1", "End."}
// `timestamp_tenths` is Unix time in tenths of a second, taken by the caller (we read no clock).
// Two spaces follow "Timestamp:" as in server 13.24.
std::vector<std::string> perf_marker_lines(std::int64_t timestamp_tenths, unsigned stripe_index,
                                           std::uint64_t stripe_bytes, unsigned stripe_count);

// Parses the text of a 111 reply: "Range Marker 0-29,60-89". A leading "111 " or "111-" (as kept
// by reply_parser) is skipped; "Range Marker" matches case-insensitively, followed by one or more
// spaces and a strict range list (parse_range_list).
// Errors: protocol::Errc::BadArgument when the prefix or the range list is malformed.
Result<ByteRangeSet> parse_range_marker(std::string_view line_text);

// Finds the line containing "Stripe Bytes Transferred:" (as Globus' client does with strstr),
// skips whitespace and reads the decimal count. nullopt when no such line or no valid number.
std::optional<std::uint64_t> parse_perf_marker_bytes(const std::vector<std::string>& lines);

}  // namespace gridftp::protocol::restart
