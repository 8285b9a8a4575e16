// plan_stripe_senders (server/data/mode_e_streams.hpp): after SPOR each receiving stripe's
// connections send that stripe's blocks only, under the session's OPTS RETR layout (GFD.20).
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "server/data/mode_e_streams.hpp"

namespace {

using gridftp::protocol::mode_e::StripeLayout;
using gridftp::protocol::restart::ByteRangeSet;
using gridftp::protocol::restart::Range;
using gridftp::server::plan_stripe_senders;

constexpr std::uint64_t kMiB = 1 << 20;

std::vector<Range> blocks_of(gridftp::server::SenderShared& sender) {
  std::vector<Range> blocks;
  while (auto block = sender.next_block())
    blocks.push_back({block->offset, block->offset + block->length});
  return blocks;
}

}  // namespace

TEST_CASE("Each stripe after SPOR is planned only the blocks its layout gives it",
          "[server][stripe]") {
  // Blocked by 1 MiB over two stripes, sent in 512 KiB MODE E blocks: stripe 0 owns [0, 1M) and
  // [2M, 3M), stripe 1 owns [1M, 2M) and the 5-byte tail.
  auto senders =
      plan_stripe_senders({StripeLayout::Kind::Blocked, kMiB}, 2, 3 * kMiB + 5, {}, kMiB / 2);
  REQUIRE(senders.has_value());
  REQUIRE(senders->size() == 2);
  CHECK(blocks_of(*(*senders)[0]) == std::vector<Range>{{0, kMiB / 2},
                                                        {kMiB / 2, kMiB},
                                                        {2 * kMiB, 2 * kMiB + kMiB / 2},
                                                        {2 * kMiB + kMiB / 2, 3 * kMiB}});
  CHECK(blocks_of(*(*senders)[1]) == std::vector<Range>{{kMiB, kMiB + kMiB / 2},
                                                        {kMiB + kMiB / 2, 2 * kMiB},
                                                        {3 * kMiB, 3 * kMiB + 5}});
}

TEST_CASE("A striped send skips what the receiver holds, and one stripe sends everything",
          "[server][stripe]") {
  ByteRangeSet held;
  held.insert(0, 100);
  auto partitioned = plan_stripe_senders({StripeLayout::Kind::Partitioned, 0}, 2, 1000, held, 4096);
  REQUIRE(partitioned.has_value());
  CHECK(blocks_of(*(*partitioned)[0]) == std::vector<Range>{{100, 500}});
  CHECK(blocks_of(*(*partitioned)[1]) == std::vector<Range>{{500, 1000}});
  auto one = plan_stripe_senders({StripeLayout::Kind::Blocked, 10}, 1, 1000, {}, 4096);
  REQUIRE(one.has_value());
  CHECK(blocks_of(*(*one)[0]) == std::vector<Range>{{0, 1000}});
}

TEST_CASE("A striped send with a zero stripe block size is refused", "[server][stripe]") {
  CHECK_FALSE(plan_stripe_senders({StripeLayout::Kind::Blocked, 0}, 2, 1000, {}, 4096).has_value());
}
