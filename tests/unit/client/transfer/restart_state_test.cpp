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

TEST_CASE("stream_resume_offset trusts the 111 ranges of a server that sends markers",
          "[client][restart]") {
  gridftp::client::RestartState state;
  state.resume = true;
  state.dest_store_began = true;
  state.dest_sends_markers = true;
  state.dest_ranges.insert(0, 4096);
  state.dest_ranges.insert(8192, 9000);
  CHECK_FALSE(gridftp::client::stream_resume_needs_size(state));
  // The size of the file named says nothing on such a server (its upload is elsewhere).
  CHECK(gridftp::client::stream_resume_offset(state, 9999, 10000) == 4096);
  state.dest_ranges = {};
  CHECK(gridftp::client::stream_resume_offset(state, 9999, 10000) == 0);
}

TEST_CASE("stream_resume_offset takes the size a STOR of this run wrote in place",
          "[client][restart]") {
  gridftp::client::RestartState state;
  state.resume = true;
  CHECK_FALSE(gridftp::client::stream_resume_needs_size(state));
  CHECK(gridftp::client::stream_resume_offset(state, 4096, 10000) == 0);  // not our file
  state.dest_store_began = true;
  CHECK(gridftp::client::stream_resume_needs_size(state));
  CHECK(gridftp::client::stream_resume_offset(state, 4096, 10000) == 4096);
  CHECK(gridftp::client::stream_resume_offset(state, std::nullopt, 10000) == 0);
}

TEST_CASE("stream_resume_offset starts over when not resuming or when all is held",
          "[client][restart]") {
  gridftp::client::RestartState state;
  state.dest_store_began = true;
  CHECK(gridftp::client::stream_resume_offset(state, 4096, 10000) == 0);
  state.resume = true;
  CHECK(gridftp::client::stream_resume_offset(state, 10000, 10000) == 0);
  CHECK(gridftp::client::stream_resume_offset(state, 12000, 10000) == 0);
}
