// The UDPX receiver's block accounting (docs/UDPX.md §3.2): frontier, duplicates, the
// window, loss after three later blocks (or the last block), the reordering window and when
// NAKs repeat.
#include "protocol/udpx/receive_tracker.hpp"

#include <vector>

#include <catch2/catch.hpp>

using gridftp::protocol::udpx::BlockRange;
using gridftp::protocol::udpx::ReceiveTracker;
using Arrival = ReceiveTracker::Arrival;

namespace {
std::vector<BlockRange> due(ReceiveTracker& tracker, std::int64_t now,
                            std::int64_t interval = 100) {
  std::vector<BlockRange> out;
  tracker.collect_due_naks(now, interval, 64, out);
  return out;
}
}  // namespace

TEST_CASE("Blocks in order move the frontier, and a repeat is a duplicate", "[udpx]") {
  ReceiveTracker tracker(1024);
  tracker.set_block_count(3);
  REQUIRE(tracker.on_block(0, true, 0) == Arrival::New);
  REQUIRE(tracker.on_block(1, true, 0) == Arrival::New);
  REQUIRE(tracker.frontier() == 2);
  REQUIRE(tracker.on_block(1, false, 0) == Arrival::Duplicate);
  REQUIRE(tracker.duplicates() == 1);
  REQUIRE_FALSE(tracker.complete());
  REQUIRE(tracker.on_block(2, true, 0) == Arrival::New);
  REQUIRE(tracker.complete());
  REQUIRE(tracker.on_block(3, true, 0) == Arrival::BeyondEnd);
}

TEST_CASE("A gap is lost only after three later blocks, then NAKed every interval", "[udpx]") {
  ReceiveTracker tracker(1024);
  tracker.on_block(0, true, 0);
  tracker.on_block(2, true, 10);  // block 1 skipped
  tracker.on_block(3, true, 20);
  REQUIRE(due(tracker, 30).empty());  // two later blocks: could still be reordering
  tracker.on_block(4, true, 30);
  REQUIRE(due(tracker, 40) == std::vector<BlockRange>{{1, 1}});
  // NAKed at 40: due again at 140, 240, 340, ... with no backoff (each copy's loss is new).
  for (std::int64_t at = 140; at <= 1040; at += 100) {
    REQUIRE(due(tracker, at - 1).empty());
    REQUIRE(due(tracker, at) == std::vector<BlockRange>{{1, 1}});
  }
  REQUIRE(tracker.on_block(1, false, 1100) == Arrival::New);
  REQUIRE(tracker.frontier() == 5);
  REQUIRE(due(tracker, 5000).empty());
}

TEST_CASE("A block's first NAK is repeated after a sixth of the interval", "[udpx]") {
  // A lost NAK must not cost a whole retransmission round trip; later NAKs keep the interval.
  ReceiveTracker tracker(1024);
  for (std::uint64_t k : {0U, 2U, 3U, 4U}) tracker.on_block(k, true, 0);
  const std::int64_t interval = 450'000;  // 1.5 x a 300 ms RTT
  REQUIRE(due(tracker, 1000, interval) == std::vector<BlockRange>{{1, 1}});
  REQUIRE(due(tracker, 1000 + 74'999, interval).empty());
  REQUIRE(due(tracker, 1000 + 75'000, interval) == std::vector<BlockRange>{{1, 1}});
  REQUIRE(due(tracker, 76'000 + 449'999, interval).empty());
  REQUIRE(due(tracker, 76'000 + 450'000, interval) == std::vector<BlockRange>{{1, 1}});
  // A short interval is not stretched by the repeat's 5 ms floor.
  ReceiveTracker near(1024);
  for (std::uint64_t k : {0U, 2U, 3U, 4U}) near.on_block(k, true, 0);
  REQUIRE(due(near, 0, 3000) == std::vector<BlockRange>{{1, 1}});
  REQUIRE(due(near, 3000, 3000) == std::vector<BlockRange>{{1, 1}});
}

TEST_CASE("Once the last block is in, a gap just below it is lost at once", "[udpx]") {
  // No later block can come to make three: without this the last blocks waited for a probe.
  ReceiveTracker tracker(1024);
  tracker.set_block_count(4);
  tracker.on_block(0, true, 0);
  tracker.on_block(1, true, 0);
  tracker.on_block(3, true, 10);
  REQUIRE(due(tracker, 20) == std::vector<BlockRange>{{2, 1}});
  ReceiveTracker open_ended(1024);  // no block count: the rule of three holds
  open_ended.on_block(0, true, 0);
  open_ended.on_block(2, true, 10);
  REQUIRE(due(open_ended, 20).empty());
}

TEST_CASE("Missing blocks come back as ranges, lowest first, capped in number", "[udpx]") {
  ReceiveTracker tracker(4096);
  for (std::uint64_t k : {0U, 1U, 5U, 6U, 7U, 9U, 200U, 201U, 202U, 203U})
    tracker.on_block(k, true, 0);
  std::vector<BlockRange> all;
  tracker.collect_missing(64, all);
  REQUIRE(all == std::vector<BlockRange>{{2, 3}, {8, 1}, {10, 190}});
  REQUIRE(due(tracker, 0) == all);
  std::vector<BlockRange> first_two;
  tracker.collect_missing(2, first_two);
  REQUIRE(first_two == std::vector<BlockRange>{{2, 3}, {8, 1}});
}

TEST_CASE("A late first send opens a reordering window for later gaps", "[udpx]") {
  ReceiveTracker tracker(1024);
  tracker.set_srtt(100'000);
  tracker.on_block(0, true, 0);
  tracker.on_block(2, true, 1000);
  tracker.on_block(1, true, 3000);  // original of 1 arrived 2 ms after it was skipped
  REQUIRE(tracker.reorder_window() == 2500);
  tracker.on_block(4, true, 10'000);  // 3 skipped at 10 ms
  for (std::uint64_t k = 5; k < 9; ++k) tracker.on_block(k, true, 10'000);
  REQUIRE(due(tracker, 12'000).empty());  // within the window: maybe only late
  REQUIRE(due(tracker, 12'500) == std::vector<BlockRange>{{3, 1}});
}

TEST_CASE("The reordering window never exceeds a quarter RTT", "[udpx]") {
  ReceiveTracker tracker(1024);
  tracker.set_srtt(4000);
  tracker.on_block(0, true, 0);
  tracker.on_block(2, true, 0);
  tracker.on_block(1, true, 50'000);
  REQUIRE(tracker.reorder_window() == 1000);
}

TEST_CASE("Blocks beyond the window are refused, and the window slides with the frontier",
          "[udpx]") {
  ReceiveTracker tracker(100);
  REQUIRE(tracker.on_block(100, true, 0) == Arrival::BeyondWindow);
  REQUIRE(tracker.on_block(99, true, 0) == Arrival::New);
  for (std::uint64_t k = 0; k < 99; ++k) REQUIRE(tracker.on_block(k, true, 0) == Arrival::New);
  REQUIRE(tracker.frontier() == 100);
  // Slots are reused: block 150 lands where block 50 was, and is new.
  REQUIRE(tracker.on_block(150, true, 0) == Arrival::New);
  REQUIRE(tracker.on_block(199, true, 0) == Arrival::New);
  REQUIRE(tracker.on_block(200, true, 0) == Arrival::BeyondWindow);
  std::vector<BlockRange> missing;
  tracker.collect_missing(64, missing);
  REQUIRE(missing == std::vector<BlockRange>{{100, 50}, {151, 48}});
}

TEST_CASE("Whole received words are skipped without losing the ranges around them", "[udpx]") {
  ReceiveTracker tracker(1 << 16);
  for (std::uint64_t k = 0; k < 10'000; ++k)
    if (k != 3 && k != 5000 && k != 9998) tracker.on_block(k, true, 0);
  std::vector<BlockRange> missing;
  tracker.collect_missing(64, missing);
  REQUIRE(missing == std::vector<BlockRange>{{3, 1}, {5000, 1}, {9998, 1}});
}
