#include "protocol/mode_e/block_planner.hpp"

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/mode_e_errors.hpp"
#include "protocol/restart/byte_range_set.hpp"

using gridftp::protocol::mode_e::Block;
using gridftp::protocol::mode_e::BlockPlanner;
using gridftp::protocol::mode_e::Errc;
using gridftp::protocol::restart::ByteRangeSet;
using gridftp::protocol::restart::parse_range_list;
using gridftp::protocol::restart::Range;

namespace {

std::vector<Block> drain(BlockPlanner& planner) {
  std::vector<Block> blocks;
  while (auto block = planner.next_block()) blocks.push_back(*block);
  return blocks;
}

}  // namespace

TEST_CASE("BlockPlanner cuts the observed -p 4 get into 256 KiB blocks", "[mode_e]") {
  // docs/WIRE.md §2.4: 3,000,000 bytes -> 11 full blocks and 116416 @2883584.
  auto planner = BlockPlanner::for_restart(0, 3000000, ByteRangeSet{}, 262144);
  REQUIRE(planner);
  CHECK(planner->remaining_bytes() == 3000000);
  const auto blocks = drain(*planner);
  REQUIRE(blocks.size() == 12);
  for (std::size_t i = 0; i < 11; ++i) CHECK(blocks[i] == Block{i * 262144, 262144});
  CHECK(blocks[11] == Block{2883584, 116416});
  CHECK(planner->remaining_bytes() == 0);
  CHECK(planner->is_done());
  CHECK_FALSE(planner->next_block().has_value());
}

TEST_CASE("BlockPlanner skips the REST ranges the receiver holds", "[mode_e]") {
  // docs/WIRE.md §2.6: after REST 0-4980736 Globus sent blocks at 4980736, 5242880, 5505024,
  // 5767168.
  const auto present = parse_range_list("0-4980736");
  REQUIRE(present);
  auto planner = BlockPlanner::for_restart(0, 6000000, *present, 262144);
  REQUIRE(planner);
  CHECK(drain(*planner) ==
        std::vector<Block>{
            {4980736, 262144}, {5242880, 262144}, {5505024, 262144}, {5767168, 232832}});
}

TEST_CASE("BlockPlanner fills holes between several REST ranges", "[mode_e]") {
  const auto present = parse_range_list("0-29,60-89");
  REQUIRE(present);
  auto planner = BlockPlanner::for_restart(0, 100, *present, 16);
  REQUIRE(planner);
  CHECK(planner->remaining_bytes() == 42);
  CHECK(drain(*planner) == std::vector<Block>{{29, 3}, {32, 16}, {48, 12}, {89, 7}, {96, 4}});
}

TEST_CASE("BlockPlanner aligns blocks to absolute multiples of the block size", "[mode_e]") {
  auto planner = BlockPlanner::create({{1000, 600000}}, 262144);
  REQUIRE(planner);
  CHECK(drain(*planner) == std::vector<Block>{{1000, 261144}, {262144, 262144}, {524288, 75712}});
}

TEST_CASE("BlockPlanner merges overlapping ranges given in any order", "[mode_e]") {
  auto planner = BlockPlanner::create({{50, 70}, {0, 10}, {5, 20}, {70, 75}}, 100);
  REQUIRE(planner);
  CHECK(drain(*planner) == std::vector<Block>{{0, 20}, {50, 25}});
}

TEST_CASE("BlockPlanner has nothing to send for an empty plan", "[mode_e]") {
  SECTION("empty file") {
    auto planner = BlockPlanner::for_restart(0, 0, ByteRangeSet{}, 4096);
    REQUIRE(planner);
    CHECK(planner->is_done());
    CHECK_FALSE(planner->next_block());
  }
  SECTION("everything already present") {
    ByteRangeSet present;
    present.insert(0, 5000);
    auto planner = BlockPlanner::for_restart(0, 5000, present, 4096);
    REQUIRE(planner);
    CHECK_FALSE(planner->next_block());
    CHECK(planner->remaining_bytes() == 0);
  }
}

TEST_CASE("BlockPlanner rejects a zero block size", "[mode_e]") {
  const auto planner = BlockPlanner::create({{0, 10}}, 0);
  REQUIRE_FALSE(planner);
  CHECK(planner.error() == Errc::BadBlockSize);
  CHECK(planner.error() == gridftp::Condition::BadSyntax);
}

TEST_CASE("BlockPlanner works up to the last uint64 offset", "[mode_e]") {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  auto planner = BlockPlanner::create({{kMax - 10, kMax}}, 4);
  REQUIRE(planner);
  // kMax - 10 = ...F5; multiples of 4 lie at ...F8 and ...FC.
  CHECK(drain(*planner) == std::vector<Block>{{kMax - 10, 3}, {kMax - 7, 4}, {kMax - 3, 3}});
  auto whole = BlockPlanner::create({{0, kMax}}, kMax);
  REQUIRE(whole);
  CHECK(drain(*whole) == std::vector<Block>{{0, kMax}});
}

TEST_CASE("BlockPlanner hands every missing byte to pulling streams exactly once", "[mode_e]") {
  const auto seed = static_cast<std::uint32_t>(GENERATE(range(1, 21)));
  const auto block_size = static_cast<std::uint64_t>(GENERATE(1, 7, 64, 1000));
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::uint64_t> offset(0, 2000);
  ByteRangeSet present;
  for (int i = 0; i < 5; ++i) {
    const auto a = offset(random);
    const auto b = offset(random);
    present.insert(std::min(a, b), std::max(a, b));
  }
  const std::uint64_t file_size = 2000;
  auto planner = BlockPlanner::for_restart(0, file_size, present, block_size);
  REQUIRE(planner);

  // Streams pull in a random order, as the fastest one asks first.
  constexpr unsigned kStreams = 4;
  std::vector<std::vector<Block>> per_stream(kStreams);
  std::uniform_int_distribution<unsigned> pick(0, kStreams - 1);
  ByteRangeSet sent = present;
  std::uint64_t sent_bytes = 0;
  while (auto block = planner->next_block()) {
    REQUIRE(block->length > 0);
    REQUIRE(block->length <= block_size);
    REQUIRE(block->offset / block_size == (block->offset + block->length - 1) / block_size);
    REQUIRE_FALSE(sent.contains(block->offset, 1));  // never sent twice, never a REST byte
    sent.insert(block->offset, block->offset + block->length);
    sent_bytes += block->length;
    per_stream[pick(random)].push_back(*block);
  }
  CHECK(sent.contains(0, file_size));
  CHECK(sent_bytes == file_size - present.covered_bytes());
}
