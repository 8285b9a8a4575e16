#include "protocol/restart/byte_range_set.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::restart::ByteRangeSet;
using gridftp::protocol::restart::parse_range_list;
using gridftp::protocol::restart::Range;
using Ranges = std::vector<Range>;

namespace {

ByteRangeSet set_of(const Ranges& ranges) {
  ByteRangeSet set;
  for (const auto& range : ranges) set.insert(range);
  return set;
}

}  // namespace

TEST_CASE("ByteRangeSet keeps disjoint ranges sorted", "[restart]") {
  const auto set = set_of({{200, 300}, {0, 100}, {400, 401}});
  CHECK(set.ranges() == Ranges{{0, 100}, {200, 300}, {400, 401}});
  CHECK(set.covered_bytes() == 201);
}

TEST_CASE("ByteRangeSet merges adjacent and overlapping ranges", "[restart]") {
  CHECK(set_of({{0, 100}, {100, 200}}).ranges() == Ranges{{0, 200}});
  CHECK(set_of({{100, 200}, {0, 100}}).ranges() == Ranges{{0, 200}});
  CHECK(set_of({{0, 150}, {100, 200}}).ranges() == Ranges{{0, 200}});
  CHECK(set_of({{0, 300}, {100, 200}}).ranges() == Ranges{{0, 300}});
  CHECK(set_of({{100, 200}, {0, 300}}).ranges() == Ranges{{0, 300}});
  CHECK(set_of({{0, 10}, {20, 30}, {40, 50}, {5, 45}}).ranges() == Ranges{{0, 50}});
  CHECK(set_of({{0, 10}, {20, 30}, {40, 50}, {10, 20}}).ranges() == Ranges{{0, 30}, {40, 50}});
  CHECK(set_of({{0, 10}, {0, 10}}).ranges() == Ranges{{0, 10}});
  CHECK(set_of({{0, 10}, {11, 20}}).ranges() == Ranges{{0, 10}, {11, 20}});
}

TEST_CASE("ByteRangeSet ignores empty and inverted ranges", "[restart]") {
  const auto set = set_of({{5, 5}, {10, 3}});
  CHECK(set.empty());
  CHECK(set.covered_bytes() == 0);
}

TEST_CASE("ByteRangeSet merges another set", "[restart]") {
  auto set = set_of({{0, 10}, {50, 60}});
  set.insert(set_of({{10, 20}, {55, 70}}));
  CHECK(set.ranges() == Ranges{{0, 20}, {50, 70}});
}

TEST_CASE("ByteRangeSet contains checks every byte of a range", "[restart]") {
  const auto set = set_of({{10, 20}, {30, 40}});
  CHECK(set.contains(10, 10));
  CHECK(set.contains(15, 5));
  CHECK(set.contains(19, 1));
  CHECK_FALSE(set.contains(9, 1));
  CHECK_FALSE(set.contains(9, 2));
  CHECK_FALSE(set.contains(20, 1));
  CHECK_FALSE(set.contains(15, 6));
  CHECK_FALSE(set.contains(10, 30));  // spans the hole at [20, 30)
  CHECK(set.contains(25, 0));         // an empty range is always contained
  CHECK_FALSE(ByteRangeSet{}.contains(0, 1));
}

TEST_CASE("ByteRangeSet contains handles the top of the uint64 range", "[restart]") {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  const auto set = set_of({{kMax - 10, kMax}});
  CHECK(set.contains(kMax - 10, 10));
  CHECK_FALSE(set.contains(kMax - 10, 11));
  CHECK_FALSE(set.contains(kMax - 1, kMax));  // end overflows
}

TEST_CASE("ByteRangeSet gaps lists the missing pieces of a window", "[restart]") {
  const auto set = set_of({{10, 20}, {30, 40}});
  CHECK(set.gaps(0, 50) == Ranges{{0, 10}, {20, 30}, {40, 50}});
  CHECK(set.gaps(10, 40) == Ranges{{20, 30}});
  CHECK(set.gaps(15, 35) == Ranges{{20, 30}});
  CHECK(set.gaps(12, 18).empty());
  CHECK(set.gaps(20, 30) == Ranges{{20, 30}});
  CHECK(set.gaps(45, 60) == Ranges{{45, 60}});
  CHECK(set.gaps(0, 5) == Ranges{{0, 5}});
  CHECK(set.gaps(5, 5).empty());
  CHECK(set.gaps(9, 3).empty());
  CHECK(ByteRangeSet{}.gaps(0, 100) == Ranges{{0, 100}});
  CHECK(set_of({{0, 100}}).gaps(0, 100).empty());
}

TEST_CASE("ByteRangeSet formats the Globus range list", "[restart]") {
  CHECK(set_of({{0, 100}, {200, 300}}).format_range_list() == "0-100,200-300");
  CHECK(set_of({{0, 3000000}}).format_range_list() == "0-3000000");
  CHECK(ByteRangeSet{}.format_range_list().empty());
}

TEST_CASE("parse_range_list reads the MODE E REST form", "[restart]") {
  const auto set = parse_range_list("0-4980736,5242880-6000000");
  REQUIRE(set);
  CHECK(set->ranges() == Ranges{{0, 4980736}, {5242880, 6000000}});
  CHECK(set->format_range_list() == "0-4980736,5242880-6000000");
}

TEST_CASE("parse_range_list merges overlapping and unordered ranges", "[restart]") {
  const auto set = parse_range_list("60-89,0-29,20-40,89-90");
  REQUIRE(set);
  CHECK(set->ranges() == Ranges{{0, 40}, {60, 90}});
}

TEST_CASE("parse_range_list accepts the largest 64-bit values", "[restart]") {
  const auto set = parse_range_list("18446744073709551614-18446744073709551615");
  REQUIRE(set);
  CHECK(set->covered_bytes() == 1);
}

TEST_CASE("parse_range_list rejects malformed lists", "[restart]") {
  const std::string text = GENERATE(
      as<std::string>{}, "", "0-0", "100-50", "0-100, 200-300", " 0-100", "0-100 ", "0-100,",
      ",0-100", "0-100,,200-300", "-5", "5-", "-", "abc", "100", "+1-5", "1-+5", "0-0x10", "0-100;",
      "1-2-3", "0-18446744073709551616", "18446744073709551615-18446744073709551616", "0--5",
      "0-1a", "\t0-1", std::string("0-1\0", 4));
  const auto set = parse_range_list(text);
  REQUIRE_FALSE(set);
  CHECK(set.error() == gridftp::Condition::BadSyntax);
}

TEST_CASE("parse_range_list accepts a cut list only where it is complete", "[restart]") {
  const std::string text = "0-100,2000-30000";
  // Every other prefix ends inside a number pair or holds an end below its start.
  const std::vector<std::string> valid{"0-1", "0-10", "0-100", "0-100,2000-3000", text};
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    const auto prefix = text.substr(0, cut);
    INFO(prefix);
    const bool expected = std::find(valid.begin(), valid.end(), prefix) != valid.end();
    CHECK(parse_range_list(prefix).has_value() == expected);
  }
}

TEST_CASE("ByteRangeSet agrees with a bitmap model", "[restart]") {
  const auto seed = static_cast<std::uint32_t>(GENERATE(range(1, 31)));
  std::mt19937 random(seed);
  constexpr std::uint64_t kUniverse = 120;
  std::uniform_int_distribution<std::uint64_t> point(0, kUniverse);
  ByteRangeSet set;
  std::vector<bool> model(kUniverse, false);
  for (int step = 0; step < 12; ++step) {
    const auto a = point(random);
    const auto b = point(random);
    set.insert(a, b);  // inverted pairs must be ignored, as in the model
    for (auto i = a; i < b; ++i) model[i] = true;

    std::uint64_t model_covered = 0;
    for (const bool bit : model) model_covered += bit ? 1 : 0;
    REQUIRE(set.covered_bytes() == model_covered);
    for (std::size_t r = 1; r < set.ranges().size(); ++r) {
      REQUIRE(set.ranges()[r - 1].end < set.ranges()[r].start);  // disjoint and not adjacent
    }
    const auto start = point(random);
    const auto end = point(random);
    bool model_contains = true;
    for (auto i = start; i < end; ++i) model_contains = model_contains && model[i];
    REQUIRE(set.contains(start, end > start ? end - start : 0) == model_contains);
    ByteRangeSet gaps;
    for (const auto& gap : set.gaps(start, end)) gaps.insert(gap);
    for (auto i = start; i < end; ++i) REQUIRE(gaps.contains(i, 1) == !model[i]);
    if (!set.empty()) {
      const auto reparsed = parse_range_list(set.format_range_list());
      REQUIRE(reparsed);
      REQUIRE(*reparsed == set);
    }
  }
}
