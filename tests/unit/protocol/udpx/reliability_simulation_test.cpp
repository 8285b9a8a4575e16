// The UDPX reliability rules working together (docs/UDPX.md §3): a SendScheduler and a
// ReceiveTracker joined by a simulated path with delay and seeded random loss in both
// directions, in virtual time. Every block must arrive, and the sender must retransmit exactly
// the copies the path lost: each retransmission repairs a loss, none is spurious (a spurious one
// would show up as a duplicate at the receiver).
#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/udpx/receive_tracker.hpp"
#include "protocol/udpx/send_scheduler.hpp"

using namespace gridftp::protocol::udpx;
using Kind = SendScheduler::Next::Kind;

namespace {

struct PathModel {
  Microseconds one_way_delay = 20'000;
  Microseconds packet_gap = 100;  // the sender's pacing: 10,000 packets/s
  double forward_loss = 0.0;
  double reverse_loss = 0.0;
  std::uint64_t blocks = 20'000;
  std::uint64_t window = 4'096;
  std::uint32_t seed = 1;
  std::uint64_t redundant_tail = 0;  // SendScheduler::set_redundant_tail
};

struct Outcome {
  bool complete = false;
  Microseconds finished_at = 0;
  std::uint64_t data_packets_lost = 0;
  std::uint64_t retransmissions = 0;
  std::uint64_t second_copies = 0;
  std::uint64_t duplicates = 0;
};

// A packet in flight: a block for the receiver, or the receiver's report for the sender.
struct InFlight {
  Microseconds arrives = 0;
  enum class What { Block, Report, Probe } what = What::Block;
  std::uint64_t block = 0;
  bool original = true;
  // A report: the ACK fields and the NAK ranges.
  std::uint64_t frontier = 0;
  std::uint64_t highest = 0;
  std::vector<BlockRange> naks;
  bool operator>(const InFlight& other) const { return arrives > other.arrives; }
};

Outcome simulate(const PathModel& path) {
  std::mt19937_64 random(path.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  SendScheduler sender(path.window);
  sender.set_block_count(path.blocks);
  sender.set_redundant_tail(path.redundant_tail);
  const Microseconds rtt = 2 * path.one_way_delay;
  sender.set_rtt(rtt, rtt / 8);
  ReceiveTracker receiver(path.window);
  receiver.set_block_count(path.blocks);
  receiver.set_srtt(rtt);
  // The receiver's estimate of a retransmission's round trip (docs/UDPX.md §3.2).
  const Microseconds nak_interval = rtt + 4 * (rtt / 8) + 2'000;

  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> network;
  Outcome outcome;
  Microseconds next_send = 0;
  Microseconds next_tick = 0;
  std::vector<BlockRange> ranges;
  auto report = [&](Microseconds now, bool answer_probe) {
    ranges.clear();
    if (answer_probe) {
      receiver.collect_missing(64, ranges);
    } else {
      receiver.collect_due_naks(now, nak_interval, 64, ranges);
    }
    if (uniform(random) < path.reverse_loss) {
      return;
    }
    InFlight packet;
    packet.arrives = now + path.one_way_delay;
    packet.what = InFlight::What::Report;
    packet.frontier = receiver.frontier();
    packet.highest = receiver.highest();
    packet.naks = ranges;
    network.push(std::move(packet));
  };

  for (Microseconds now = 0; now < 600'000'000;) {
    // Everything due at `now`: arrivals, the receiver's 1 ms tick, the sender's next slot.
    while (!network.empty() && network.top().arrives <= now) {
      const InFlight packet = network.top();
      network.pop();
      switch (packet.what) {
        case InFlight::What::Block:
          if (receiver.on_block(packet.block, packet.original, now) ==
              ReceiveTracker::Arrival::Duplicate) {
            ++outcome.duplicates;
          }
          break;
        case InFlight::What::Probe:
          report(now, true);
          break;
        case InFlight::What::Report:
          sender.on_ack(packet.frontier, path.window, packet.highest, now);
          sender.on_nak(packet.naks, now);
          break;
      }
    }
    if (receiver.complete()) {
      outcome.complete = true;
      outcome.finished_at = now;
      break;
    }
    if (now >= next_tick) {
      report(now, false);
      next_tick = now + 1'000;
    }
    if (now >= next_send) {
      const auto next = sender.next(now);
      if (next.kind == Kind::Retransmit || next.kind == Kind::New || next.kind == Kind::TailProbe) {
        sender.on_sent(next, now);
        const bool lost = uniform(random) <
                          (next.kind == Kind::TailProbe ? path.reverse_loss : path.forward_loss);
        if (next.kind != Kind::TailProbe && lost) {
          ++outcome.data_packets_lost;
        }
        if (!lost) {
          InFlight packet;
          packet.arrives = now + path.one_way_delay;
          packet.what =
              next.kind == Kind::TailProbe ? InFlight::What::Probe : InFlight::What::Block;
          packet.block = next.block;
          packet.original = next.kind == Kind::New;
          network.push(std::move(packet));
        }
      }
      next_send = now + path.packet_gap;
    }
    Microseconds wake = std::min(next_send, next_tick);
    if (!network.empty()) {
      wake = std::min(wake, network.top().arrives);
    }
    now = std::max(wake, now + 1);
  }
  outcome.retransmissions = sender.retransmissions();
  outcome.second_copies = sender.second_copies();
  return outcome;
}

}  // namespace

TEST_CASE("Without loss nothing is retransmitted", "[udpx]") {
  const auto outcome = simulate(PathModel{});
  REQUIRE(outcome.complete);
  CHECK(outcome.retransmissions == 0);
  CHECK(outcome.duplicates == 0);
}

TEST_CASE("Under random loss each lost copy is sent again exactly once", "[udpx]") {
  for (const double loss : {0.001, 0.01, 0.05, 0.2}) {
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      PathModel path;
      path.forward_loss = loss;
      path.seed = seed;
      const auto outcome = simulate(path);
      INFO("loss " << loss << " seed " << seed << ": lost " << outcome.data_packets_lost
                   << ", retransmitted " << outcome.retransmissions << ", duplicates "
                   << outcome.duplicates);
      REQUIRE(outcome.complete);
      CHECK(outcome.data_packets_lost > 0);
      CHECK(outcome.retransmissions == outcome.data_packets_lost);
      CHECK(outcome.duplicates == 0);
    }
  }
}

TEST_CASE("Lost NAKs and ACKs are made up for by repeated NAKs and tail probes", "[udpx]") {
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    PathModel path;
    path.forward_loss = 0.02;
    path.reverse_loss = 0.3;
    path.seed = seed;
    const auto outcome = simulate(path);
    INFO("seed " << seed << ": lost " << outcome.data_packets_lost << ", retransmitted "
                 << outcome.retransmissions << ", duplicates " << outcome.duplicates);
    REQUIRE(outcome.complete);
    CHECK(outcome.retransmissions == outcome.data_packets_lost);
    CHECK(outcome.duplicates == 0);
  }
}

TEST_CASE("A transfer whose last blocks are lost still completes", "[udpx]") {
  // Few blocks and heavy loss: the tail is lost often, and only probes and ACKs reveal it.
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    PathModel path;
    path.blocks = 12;
    path.forward_loss = 0.5;
    path.seed = seed;
    const auto outcome = simulate(path);
    INFO("seed " << seed);
    REQUIRE(outcome.complete);
    CHECK(outcome.retransmissions == outcome.data_packets_lost);
  }
}

TEST_CASE("Repairs sent twice near the end shorten the tail and are the only duplicates",
          "[udpx]") {
  // A long path with loss both ways: a lost repair near the end costs a re-NAK round trip that
  // no new data hides. Over the same seeds, the transfers with second copies end sooner.
  Microseconds plain_total = 0, twice_total = 0;
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    PathModel path;
    path.one_way_delay = 150'000;
    path.forward_loss = 0.05;
    path.reverse_loss = 0.05;
    path.blocks = 40'000;
    path.window = 40'000;
    path.seed = seed;
    const auto plain = simulate(path);
    path.redundant_tail = 3'000;  // one round trip at 10,000 packets/s
    const auto twice = simulate(path);
    INFO("seed " << seed << ": lost " << twice.data_packets_lost << ", retransmitted "
                 << twice.retransmissions << ", second copies " << twice.second_copies
                 << ", duplicates " << twice.duplicates);
    REQUIRE(plain.complete);
    REQUIRE(twice.complete);
    CHECK(plain.second_copies == 0);
    CHECK(twice.second_copies > 0);
    // No repair without a loss (a repair whose second copy got through needs no third), and
    // every duplicate is a second copy.
    CHECK(twice.retransmissions - twice.second_copies <= twice.data_packets_lost);
    CHECK(twice.duplicates <= twice.second_copies);
    // Second copies are a small share: the repairs of the last round trips, not of the file.
    CHECK(twice.second_copies * 4 < twice.data_packets_lost);
    plain_total += plain.finished_at;
    twice_total += twice.finished_at;
  }
  INFO("mean end without " << plain_total / 10 << " us, with " << twice_total / 10 << " us");
  CHECK(twice_total < plain_total);
}
