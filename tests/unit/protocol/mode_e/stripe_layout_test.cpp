#include "protocol/mode_e/stripe_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/mode_e_errors.hpp"

using gridftp::protocol::mode_e::stripe_ranges;
using gridftp::protocol::mode_e::StripeLayout;
using gridftp::protocol::mode_e::StripePlace;
using gridftp::protocol::restart::Range;
using Kind = StripeLayout::Kind;

namespace {

std::vector<Range> ranges_of(const StripeLayout& layout, StripePlace place, Range transfer) {
  auto ranges = stripe_ranges(layout, place, transfer);
  REQUIRE(ranges.has_value());
  return *ranges;
}

// Every byte of `transfer` in exactly one stripe's ranges, each stripe's ranges ascending.
void check_stripes_tile(const StripeLayout& layout, unsigned count, Range transfer) {
  std::vector<Range> all;
  for (unsigned index = 0; index < count; ++index) {
    const auto ranges = ranges_of(layout, {index, count}, transfer);
    for (std::size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i - 1].end < ranges[i].start);
    all.insert(all.end(), ranges.begin(), ranges.end());
  }
  std::sort(all.begin(), all.end(),
            [](const Range& a, const Range& b) { return a.start < b.start; });
  std::uint64_t at = transfer.start;
  for (const auto& range : all) {
    CHECK(range.start == at);
    CHECK(range.start < range.end);
    at = range.end;
  }
  CHECK(at == transfer.end);
}

}  // namespace

TEST_CASE("Blocked stripes own every count-th block, as a Globus striped cluster sends them",
          "[mode_e][stripe]") {
  // A 20,000,000-byte third-party copy between two Globus 13.24 frontends of two data nodes each,
  // `globus-url-copy -stripe -sbs 262144`: the destination's 111 markers named these ranges per
  // stripe.
  const StripeLayout layout{Kind::Blocked, 262144};
  const Range file{0, 20000000};
  const auto first = ranges_of(layout, {0, 2}, file);
  const auto second = ranges_of(layout, {1, 2}, file);
  REQUIRE(first.size() == 39);
  REQUIRE(second.size() == 38);
  CHECK(first[0] == Range{0, 262144});
  CHECK(first[1] == Range{524288, 786432});
  CHECK(first.back() == Range{19922944, 20000000});
  CHECK(second[0] == Range{262144, 524288});
  CHECK(second[1] == Range{786432, 1048576});
  CHECK(second.back() == Range{19660800, 19922944});
}

TEST_CASE("Blocked stripes count blocks from offset 0 when a transfer starts mid-file",
          "[mode_e][stripe]") {
  const StripeLayout layout{Kind::Blocked, 100};
  // Block 2 (200-300) belongs to stripe 2 of 3; the transfer starts inside it.
  CHECK(ranges_of(layout, {2, 3}, {250, 1000}) ==
        std::vector<Range>{{250, 300}, {500, 600}, {800, 900}});
  CHECK(ranges_of(layout, {0, 3}, {250, 1000}) ==
        std::vector<Range>{{300, 400}, {600, 700}, {900, 1000}});
  CHECK(ranges_of(layout, {1, 3}, {250, 1000}) == std::vector<Range>{{400, 500}, {700, 800}});
  check_stripes_tile(layout, 3, {250, 1000});
  check_stripes_tile(layout, 4, {7, 12345});
  check_stripes_tile(layout, 1, {0, 12345});
}

TEST_CASE("One stripe owns the whole transfer as one range", "[mode_e][stripe]") {
  CHECK(ranges_of({Kind::Blocked, 4096}, {0, 1}, {10, 100000}) == std::vector<Range>{{10, 100000}});
  CHECK(ranges_of({Kind::Partitioned, 0}, {0, 1}, {10, 100000}) ==
        std::vector<Range>{{10, 100000}});
}

TEST_CASE("Partitioned stripes own contiguous pieces of ceil(length / count) bytes",
          "[mode_e][stripe]") {
  const StripeLayout layout{Kind::Partitioned, 0};
  CHECK(ranges_of(layout, {0, 3}, {100, 200}) == std::vector<Range>{{100, 134}});
  CHECK(ranges_of(layout, {1, 3}, {100, 200}) == std::vector<Range>{{134, 168}});
  CHECK(ranges_of(layout, {2, 3}, {100, 200}) == std::vector<Range>{{168, 200}});
  // More stripes than bytes: the last ones move nothing.
  CHECK(ranges_of(layout, {3, 5}, {0, 3}).empty());
  check_stripes_tile(layout, 5, {0, 3});
  check_stripes_tile(layout, 7, {11, 1000003});
}

TEST_CASE("Huge block sizes and offsets near the end of the range neither wrap nor loop",
          "[mode_e][stripe]") {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  const StripeLayout huge{Kind::Blocked, kMax - 1};
  CHECK(ranges_of(huge, {0, 2}, {0, 1000}) == std::vector<Range>{{0, 1000}});
  CHECK(ranges_of(huge, {1, 2}, {0, 1000}).empty());
  const StripeLayout half{Kind::Blocked, std::uint64_t{1} << 63};
  CHECK(ranges_of(half, {1, 2}, {kMax - 10, kMax}) == std::vector<Range>{{kMax - 10, kMax}});
  CHECK(ranges_of({Kind::Blocked, 1000}, {0, 2}, {kMax - 2500, kMax - 5}).size() <= 2);
  check_stripes_tile({Kind::Blocked, 1000}, 2, {kMax - 2500, kMax - 5});
}

TEST_CASE("A stripe outside the count or a zero block size is refused", "[mode_e][stripe]") {
  const auto outside = stripe_ranges({Kind::Blocked, 100}, {2, 2}, {0, 10});
  REQUIRE_FALSE(outside.has_value());
  CHECK(outside.error() == gridftp::protocol::Errc::BadArgument);
  REQUIRE_FALSE(stripe_ranges({Kind::Partitioned, 0}, {0, 0}, {0, 10}).has_value());
  const auto zero = stripe_ranges({Kind::Blocked, 0}, {0, 2}, {0, 10});
  REQUIRE_FALSE(zero.has_value());
  CHECK(zero.error() == gridftp::protocol::mode_e::Errc::BadBlockSize);
  CHECK(ranges_of({Kind::Blocked, 100}, {0, 2}, {50, 50}).empty());
}

TEST_CASE("What the other stripes move is the complement of a stripe's own share",
          "[mode_e][stripe]") {
  using gridftp::protocol::mode_e::outside_stripe;
  const StripeLayout blocked{Kind::Blocked, 4};
  // 10 bytes, blocks of 4, two stripes: stripe 0 owns [0,4) and [8,10), stripe 1 owns [4,8).
  auto not_zero = outside_stripe(blocked, {0, 2}, 10);
  REQUIRE(not_zero.has_value());
  CHECK(not_zero->ranges() == std::vector<Range>{{4, 8}});
  auto not_one = outside_stripe(blocked, {1, 2}, 10);
  REQUIRE(not_one.has_value());
  CHECK(not_one->ranges() == std::vector<Range>{{0, 4}, {8, 10}});
  // Partitioned: ceil(10 / 3) = 4 bytes a stripe; the last stripe's piece is short.
  auto not_last = outside_stripe(StripeLayout{Kind::Partitioned, 0}, {2, 3}, 10);
  REQUIRE(not_last.has_value());
  CHECK(not_last->ranges() == std::vector<Range>{{0, 8}});
}

TEST_CASE("Without a layout every byte is the first stripe's", "[mode_e][stripe]") {
  using gridftp::protocol::mode_e::outside_stripe;
  auto first = outside_stripe(std::nullopt, {0, 3}, 100);
  REQUIRE(first.has_value());
  CHECK(first->empty());
  auto second = outside_stripe(std::nullopt, {1, 3}, 100);
  REQUIRE(second.has_value());
  CHECK(second->ranges() == std::vector<Range>{{0, 100}});
  auto empty_file = outside_stripe(std::nullopt, {2, 3}, 0);
  REQUIRE(empty_file.has_value());
  CHECK(empty_file->empty());
}

TEST_CASE("What the other stripes move is refused for a bad place or block size",
          "[mode_e][stripe]") {
  using gridftp::protocol::mode_e::outside_stripe;
  CHECK_FALSE(outside_stripe(std::nullopt, {0, 0}, 10).has_value());
  CHECK_FALSE(outside_stripe(std::nullopt, {3, 3}, 10).has_value());
  CHECK(outside_stripe(StripeLayout{Kind::Blocked, 0}, {0, 2}, 10).error() ==
        gridftp::protocol::mode_e::Errc::BadBlockSize);
}
