// The data sender's choice of what to send (docs/UDPX.md §3.3).
#include "protocol/udpx/send_scheduler.hpp"

#include <vector>

#include <catch2/catch.hpp>

using namespace gridftp::protocol::udpx;
using Kind = SendScheduler::Next::Kind;

namespace {
// Sends new blocks until the scheduler offers something else; returns how many went.
std::uint64_t send_new(SendScheduler& scheduler, Microseconds now) {
  std::uint64_t sent = 0;
  for (auto next = scheduler.next(now); next.kind == Kind::New; next = scheduler.next(now)) {
    scheduler.on_sent(next, now);
    ++sent;
  }
  return sent;
}
}  // namespace

TEST_CASE("New blocks go in order and stop at the window", "[udpx]") {
  SendScheduler scheduler(8);
  scheduler.set_block_count(20);
  CHECK(send_new(scheduler, 0) == 8);
  CHECK(scheduler.next(0).kind == Kind::TailProbe);  // window shut: ask the receiver
  scheduler.on_ack(5, 8, 5, 0);
  CHECK(send_new(scheduler, 10) == 5);  // frontier 5 + window 8 = block 13
  CHECK(scheduler.next_new_block() == 13);
  // The receiver's free window can shrink the sender's.
  scheduler.on_ack(13, 2, 13, 0);
  CHECK(send_new(scheduler, 20) == 2);
}

TEST_CASE("A NAKed block goes again before any new block, lowest first", "[udpx]") {
  SendScheduler scheduler(64);
  scheduler.set_block_count(100);
  scheduler.set_rtt(10'000, 1'000);
  send_new(scheduler, 0);  // 64 blocks out at t=0
  const std::vector<BlockRange> lost{{20, 2}, {7, 1}};
  scheduler.on_nak(lost, 50'000);
  CHECK(scheduler.queued() == 3);
  std::vector<std::uint64_t> order;
  for (auto next = scheduler.next(50'000); next.kind == Kind::Retransmit;
       next = scheduler.next(50'000)) {
    CHECK(next.attempt == 1);
    order.push_back(next.block);
    scheduler.on_sent(next, 50'000);
  }
  CHECK(order == std::vector<std::uint64_t>{7, 20, 21});
  CHECK(scheduler.retransmissions() == 3);
  CHECK(scheduler.next(50'000).kind == Kind::TailProbe);  // window shut, nothing queued
}

TEST_CASE("A NAK for a block still in flight is not a second retransmission", "[udpx]") {
  SendScheduler scheduler(64);
  scheduler.set_block_count(10);
  scheduler.set_rtt(10'000, 1'000);  // in flight for 10 + 4 + 2 = 16 ms after a send
  send_new(scheduler, 0);
  const std::vector<BlockRange> lost{{3, 1}};
  scheduler.on_nak(lost, 20'000);
  auto next = scheduler.next(20'000);
  REQUIRE(next.kind == Kind::Retransmit);
  scheduler.on_sent(next, 20'000);
  // A repeated NAK 10 ms later: the retransmission may still arrive.
  scheduler.on_nak(lost, 30'000);
  CHECK(scheduler.queued() == 0);
  CHECK(scheduler.suppressed_naks() == 1);
  // 17 ms after it went, it is presumed lost too: attempt 2.
  scheduler.on_nak(lost, 37'000);
  next = scheduler.next(37'000);
  REQUIRE(next.kind == Kind::Retransmit);
  CHECK(next.block == 3);
  CHECK(next.attempt == 2);
}

TEST_CASE("Acknowledged blocks are never retransmitted", "[udpx]") {
  SendScheduler scheduler(64);
  scheduler.set_block_count(30);
  send_new(scheduler, 0);
  const std::vector<BlockRange> lost{{2, 6}};
  scheduler.on_nak(lost, 1'000'000);
  CHECK(scheduler.queued() == 6);
  scheduler.on_ack(5, 64, 5, 0);  // 2..4 arrived after all
  CHECK(scheduler.queued() == 3);
  CHECK(scheduler.next(1'000'000).block == 5);
  // A NAK naming acknowledged blocks or blocks never sent queues nothing.
  const std::vector<BlockRange> stale{{0, 5}, {40, 10}};
  SendScheduler fresh(64);
  fresh.set_block_count(60);
  for (int i = 0; i < 30; ++i) {
    fresh.on_sent(fresh.next(0), 0);
  }
  fresh.on_ack(5, 64, 5, 0);
  fresh.on_nak(stale, 1'000'000);
  CHECK(fresh.queued() == 0);
}

TEST_CASE("Tail probes back off while unanswered and the transfer ends when all is acked",
          "[udpx]") {
  SendScheduler scheduler(16);
  scheduler.set_block_count(4);
  scheduler.set_rtt(10'000, 1'000);
  send_new(scheduler, 0);
  const Microseconds pto = 10'000 + 4'000 + SendScheduler::kMaxAckDelay;
  CHECK(scheduler.probe_timeout() == pto);
  auto next = scheduler.next(0);
  REQUIRE(next.kind == Kind::TailProbe);
  scheduler.on_sent(next, 0);
  CHECK(scheduler.next(pto - 1).kind == Kind::Wait);
  next = scheduler.next(pto);
  REQUIRE(next.kind == Kind::TailProbe);
  scheduler.on_sent(next, pto);
  CHECK(scheduler.probe_timeout() == 2 * pto);
  CHECK(scheduler.next(pto + 2 * pto - 1).kind == Kind::Wait);
  // An answer resets the backoff.
  scheduler.on_ack(2, 16, 2, 0);
  CHECK(scheduler.probe_timeout() == pto);
  scheduler.on_ack(4, 16, 4, 0);
  CHECK(scheduler.next(10 * pto).kind == Kind::Done);
}

TEST_CASE("Probe timeouts stop doubling at two seconds", "[udpx]") {
  SendScheduler scheduler(4);
  scheduler.set_block_count(1);
  scheduler.set_rtt(300'000, 100'000);
  send_new(scheduler, 0);
  Microseconds now = 0;
  for (int i = 0; i < 10; ++i) {
    auto next = scheduler.next(now);
    REQUIRE(next.kind == Kind::TailProbe);
    scheduler.on_sent(next, now);
    now += scheduler.probe_timeout();
  }
  CHECK(scheduler.probe_timeout() == SendScheduler::kMaxProbeTimeout);
}

TEST_CASE("Queued blocks are found across the window's wrap point", "[udpx]") {
  // A window of 100 slots: block 98 sits in slot 98, block 101 in slot 1, in another word.
  SendScheduler scheduler(100);
  scheduler.set_block_count(1000);
  REQUIRE(send_new(scheduler, 0) == 100);
  scheduler.on_ack(95, 100, 95, 0);
  REQUIRE(send_new(scheduler, 0) == 95);
  const std::vector<BlockRange> lost{{101, 1}, {98, 1}};
  scheduler.on_nak(lost, 1'000'000);
  REQUIRE(scheduler.queued() == 2);
  auto next = scheduler.next(1'000'000);
  CHECK(next.kind == Kind::Retransmit);
  CHECK(next.block == 98);
  scheduler.on_sent(next, 1'000'000);
  next = scheduler.next(1'000'000);
  CHECK(next.kind == Kind::Retransmit);
  CHECK(next.block == 101);
}

TEST_CASE("Blocks lost at the very end are sent again once an ACK shows they never came",
          "[udpx]") {
  SendScheduler scheduler(64);
  scheduler.set_block_count(10);
  scheduler.set_rtt(10'000, 1'000);
  send_new(scheduler, 0);
  // An ACK that left the receiver before they could arrive says nothing about them.
  scheduler.on_ack(8, 64, 8, 5'000);
  CHECK(scheduler.queued() == 0);
  // One that comes well after: 8 and 9 are lost; nothing later could have revealed the gap.
  scheduler.on_ack(8, 64, 8, 50'000);
  CHECK(scheduler.queued() == 2);
  CHECK(scheduler.next(50'000).block == 8);
}
