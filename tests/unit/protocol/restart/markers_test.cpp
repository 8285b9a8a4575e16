#include "protocol/restart/markers.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "protocol/restart/byte_range_set.hpp"

using gridftp::protocol::restart::ByteRangeSet;
using gridftp::protocol::restart::format_range_marker_text;
using gridftp::protocol::restart::parse_perf_marker_bytes;
using gridftp::protocol::restart::parse_range_marker;
using gridftp::protocol::restart::perf_marker_lines;
using gridftp::protocol::restart::Range;
using Lines = std::vector<std::string>;

TEST_CASE("format_range_marker_text writes the observed 111 text", "[restart]") {
  ByteRangeSet set;
  set.insert(0, 3000000);
  CHECK(format_range_marker_text(set) == "Range Marker 0-3000000");
  set.insert(4980736, 5980736);
  CHECK(format_range_marker_text(set) == "Range Marker 0-3000000,4980736-5980736");
}

TEST_CASE("perf_marker_lines writes the observed 112 lines byte for byte", "[restart]") {
  // docs/WIRE.md §4.1 (server 13.24): two spaces after "Timestamp:".
  CHECK(perf_marker_lines(17953115123, 0, 3000000, 1) ==
        Lines{"Perf Marker", " Timestamp:  1795311512.3", " Stripe Index: 0",
              " Stripe Bytes Transferred: 3000000", " Total Stripe Count: 1", "End."});
}

TEST_CASE("perf_marker_lines prints whole seconds and one tenth digit", "[restart]") {
  CHECK(perf_marker_lines(0, 0, 0, 1)[1] == " Timestamp:  0.0");
  CHECK(perf_marker_lines(9, 0, 0, 1)[1] == " Timestamp:  0.9");
  CHECK(perf_marker_lines(10, 0, 0, 1)[1] == " Timestamp:  1.0");
  CHECK(perf_marker_lines(-5, 0, 0, 1)[1] == " Timestamp:  -0.5");
  CHECK(perf_marker_lines(std::numeric_limits<std::int64_t>::min(), 0, 0, 1)[1] ==
        " Timestamp:  -922337203685477580.8");
  const auto lines = perf_marker_lines(1, 3, std::numeric_limits<std::uint64_t>::max(), 4);
  CHECK(lines[2] == " Stripe Index: 3");
  CHECK(lines[3] == " Stripe Bytes Transferred: 18446744073709551615");
  CHECK(lines[4] == " Total Stripe Count: 4");
}

TEST_CASE("parse_range_marker reads one or several ranges", "[restart]") {
  const auto one = parse_range_marker("Range Marker 0-3000000");
  REQUIRE(one);
  CHECK(one->ranges() == std::vector<Range>{{0, 3000000}});
  const auto several = parse_range_marker("Range Marker 0-29,60-89");
  REQUIRE(several);
  CHECK(several->ranges() == std::vector<Range>{{0, 29}, {60, 89}});
}

TEST_CASE("parse_range_marker skips a 111 code and matches case-insensitively", "[restart]") {
  CHECK(parse_range_marker("111 Range Marker 4980736-5980736").has_value());
  CHECK(parse_range_marker("111-Range Marker 1-2").has_value());
  CHECK(parse_range_marker("range marker 1-2").has_value());
  CHECK(parse_range_marker("Range Marker   1-2").has_value());
}

TEST_CASE("parse_range_marker rejects other text", "[restart]") {
  const std::string text = GENERATE(as<std::string>{}, "", "Range Marker", "Range Marker ",
                                    "Range Marker 0-0", "Range Markers 0-1", "RangeMarker 0-1",
                                    "Range Marker0-1", "Perf Marker", "112 Range Marker 0-1",
                                    "Range Marker 0-1,", "Range Marker 5-1", " Range Marker 0-1");
  const auto parsed = parse_range_marker(text);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error() == gridftp::Condition::BadSyntax);
}

TEST_CASE("parse_range_marker reads what format_range_marker_text writes", "[restart]") {
  ByteRangeSet set;
  set.insert(0, 29);
  set.insert(60, 89);
  set.insert(1000, std::numeric_limits<std::uint64_t>::max());
  const auto parsed = parse_range_marker(format_range_marker_text(set));
  REQUIRE(parsed);
  CHECK(*parsed == set);
}

TEST_CASE("parse_perf_marker_bytes reads our own and Globus' marker lines", "[restart]") {
  CHECK(parse_perf_marker_bytes(perf_marker_lines(17953115123, 0, 3000000, 1)) == 3000000);
  // As reply_parser keeps them: codes on the first and last line.
  CHECK(parse_perf_marker_bytes({"112-Perf Marker", " Timestamp:  1795311512.3", " Stripe Index: 0",
                                 " Stripe Bytes Transferred: 262144", " Total Stripe Count: 1",
                                 "112 End."}) == 262144);
  // GCT master prints one space; any whitespace is skipped.
  CHECK(parse_perf_marker_bytes({" Stripe Bytes Transferred:7"}) == 7);
  CHECK(parse_perf_marker_bytes({" Stripe Bytes Transferred: \t 0 "}) == 0);
  CHECK(parse_perf_marker_bytes({"Stripe Bytes Transferred: 18446744073709551615"}) ==
        std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("parse_perf_marker_bytes finds nothing in other lines", "[restart]") {
  CHECK_FALSE(parse_perf_marker_bytes({}));
  CHECK_FALSE(parse_perf_marker_bytes({"Perf Marker", "End."}));
  CHECK_FALSE(parse_perf_marker_bytes({" Stripe Bytes Transferred:"}));
  CHECK_FALSE(parse_perf_marker_bytes({" Stripe Bytes Transferred: abc"}));
  CHECK_FALSE(parse_perf_marker_bytes({" Stripe Bytes Transferred: -1"}));
  CHECK_FALSE(parse_perf_marker_bytes({" Stripe Bytes Transferred: 12x"}));
  CHECK_FALSE(parse_perf_marker_bytes({" Stripe Bytes Transferred: 18446744073709551616"}));
  CHECK_FALSE(parse_perf_marker_bytes({" stripe bytes transferred: 5"}));
}
