#include "protocol/restart/striped_markers.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/restart/markers.hpp"

using gridftp::protocol::restart::ByteRangeSet;
using gridftp::protocol::restart::perf_marker_lines;
using gridftp::protocol::restart::StripedMarkers;

namespace {

ByteRangeSet ranges(std::uint64_t start, std::uint64_t end) {
  ByteRangeSet set;
  set.insert(start, end);
  return set;
}

}  // namespace

TEST_CASE("A striping frontend's 111 is the union of its movers' ranges", "[restart]") {
  StripedMarkers markers(2, {});
  // Mover 0 holds the even 1 MiB blocks, mover 1 the odd ones (Blocked layout, 2 stripes).
  CHECK(markers.on_range_marker("111 Range Marker 0-1048576") == "Range Marker 0-1048576");
  CHECK(markers.on_range_marker("111 Range Marker 1048576-2097152,3145728-4194304") ==
        "Range Marker 0-2097152,3145728-4194304");
  CHECK(markers.on_range_marker("111 Range Marker 2097152-3145728") == "Range Marker 0-4194304");
  CHECK(markers.held() == ranges(0, 4194304));
}

TEST_CASE("A 111 that adds nothing, or does not parse, is not relayed", "[restart]") {
  StripedMarkers markers(2, {});
  REQUIRE(markers.on_range_marker("111 Range Marker 0-100"));
  CHECK_FALSE(markers.on_range_marker("111 Range Marker 0-100"));
  CHECK_FALSE(markers.on_range_marker("111 Range Marker 10-50"));
  CHECK_FALSE(markers.on_range_marker("111 Range Marker 100-50"));
  CHECK_FALSE(markers.on_range_marker("111 Something else"));
  CHECK(markers.held() == ranges(0, 100));
}

TEST_CASE("A restarted striped upload's 111 keeps what the client said was there", "[restart]") {
  // REST 0-500 came first: the movers then report only what this attempt adds to it (a mover
  // that reports the REST ranges too changes nothing).
  StripedMarkers markers(3, ranges(0, 500));
  CHECK(markers.on_range_marker("111 Range Marker 700-800") == "Range Marker 0-500,700-800");
  CHECK_FALSE(markers.on_range_marker("111 Range Marker 0-500"));
  CHECK(markers.on_range_marker("111 Range Marker 500-700") == "Range Marker 0-800");
}

TEST_CASE("A mover's 112 is relayed with its stripe's index and the stripe count", "[restart]") {
  StripedMarkers markers(3, {});
  const auto from_mover = perf_marker_lines(17953115123, 0, 3000000, 1);
  const auto relayed = markers.on_perf_marker(2, from_mover, 17953115130);
  REQUIRE(relayed);
  CHECK(*relayed == perf_marker_lines(17953115130, 2, 3000000, 3));
  REQUIRE(markers.on_perf_marker(0, perf_marker_lines(1, 0, 1000, 1), 1));
  CHECK(markers.stripe_bytes() == 3001000);
  // A later marker of the same stripe replaces its count.
  REQUIRE(markers.on_perf_marker(2, perf_marker_lines(1, 0, 4000000, 1), 1));
  CHECK(markers.stripe_bytes() == 4001000);
}

TEST_CASE("A 112 without a byte count or of an unknown stripe is not relayed", "[restart]") {
  StripedMarkers markers(2, {});
  CHECK_FALSE(markers.on_perf_marker(0, {"Perf Marker", "End."}, 1));
  CHECK_FALSE(markers.on_perf_marker(2, perf_marker_lines(1, 0, 5, 1), 1));
  CHECK(markers.stripe_bytes() == 0);
}
