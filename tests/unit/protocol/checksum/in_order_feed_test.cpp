#include "protocol/checksum/in_order_feed.hpp"

#include <cstdint>

#include <catch2/catch.hpp>

using gridftp::protocol::checksum::InOrderFeed;

TEST_CASE("InOrderFeed takes blocks that continue the bytes fed", "[checksum]") {
  InOrderFeed feed;
  CHECK(feed.covers(0));
  CHECK(feed.accept(0, 100));
  CHECK(feed.accept(100, 1));
  CHECK(feed.accept(55, 0));  // an empty block changes nothing, wherever it claims to be
  CHECK(feed.accept(101, 899));
  CHECK(feed.covers(1000));
  CHECK_FALSE(feed.covers(999));
  CHECK_FALSE(feed.covers(1001));
  CHECK(feed.fed_bytes() == 1000);
}

TEST_CASE("InOrderFeed gives up for good on the first block out of order", "[checksum]") {
  const auto stray = GENERATE(std::uint64_t{101}, std::uint64_t{99}, std::uint64_t{0});
  InOrderFeed feed;
  REQUIRE(feed.accept(0, 100));
  CHECK_FALSE(feed.accept(stray, 10));  // ahead of the cursor, or back over what was fed
  CHECK(feed.is_given_up());
  CHECK_FALSE(feed.accept(100, 10));  // the block it waited for comes too late
  CHECK_FALSE(feed.covers(100));
  CHECK_FALSE(feed.covers(110));
}

TEST_CASE("InOrderFeed refuses a block that would pass 2^64", "[checksum]") {
  InOrderFeed feed;
  REQUIRE(feed.accept(0, UINT64_MAX - 1));
  CHECK_FALSE(feed.accept(UINT64_MAX - 1, 2));
  CHECK(feed.is_given_up());
}
