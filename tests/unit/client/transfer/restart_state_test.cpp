#include "client/transfer/restart_state.hpp"

#include <catch2/catch.hpp>

using gridftp::client::restart_argument;
using gridftp::protocol::restart::ByteRangeSet;

TEST_CASE("restart_argument starts over when nothing is held", "[client][restart]") {
  CHECK_FALSE(restart_argument(false, ByteRangeSet{}));
  CHECK_FALSE(restart_argument(true, ByteRangeSet{}));
}

TEST_CASE("restart_argument in stream mode resumes after the run from byte 0",
          "[client][restart]") {
  ByteRangeSet held;
  held.insert(0, 4980736);
  held.insert(5242880, 6000000);
  CHECK(restart_argument(false, held) == "4980736");
  ByteRangeSet hole_first;
  hole_first.insert(10, 20);
  CHECK_FALSE(restart_argument(false, hole_first));
}

TEST_CASE("restart_argument in MODE E sends the whole range list", "[client][restart]") {
  ByteRangeSet held;
  held.insert(0, 4980736);
  held.insert(5242880, 6000000);
  CHECK(restart_argument(true, held) == "0-4980736,5242880-6000000");
}
