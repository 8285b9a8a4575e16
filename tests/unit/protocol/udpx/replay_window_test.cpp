// The UDPX anti-replay window (docs/UDPX.md §4.4): edge vectors, and random arrivals checked
// against a reference model that remembers every number (a std::set) and applies the window rule.
#include "protocol/udpx/replay_window.hpp"

#include <cstdint>
#include <random>
#include <set>

#include <catch2/catch.hpp>

using gridftp::protocol::udpx::ReplayWindow;

namespace {
constexpr std::uint64_t kWindow = ReplayWindow::kWindowPackets;
}

TEST_CASE("The replay window accepts each packet number once", "[udpx]") {
  ReplayWindow window;
  CHECK(window.empty());
  CHECK(window.accept(0));
  CHECK_FALSE(window.may_accept(0));
  CHECK_FALSE(window.accept(0));
  CHECK(window.accept(5));
  CHECK(window.accept(3));  // late but inside the window
  CHECK_FALSE(window.accept(3));
  CHECK(window.may_accept(4));
  CHECK(window.highest() == 5);
}

TEST_CASE("The replay window's lower edge is highest minus 65536", "[udpx]") {
  ReplayWindow window;
  const std::uint64_t top = 3 * kWindow + 17;
  REQUIRE(window.accept(top));
  CHECK(window.may_accept(top - kWindow + 1));  // the oldest number it can still judge
  CHECK_FALSE(window.may_accept(top - kWindow));
  CHECK_FALSE(window.accept(top - kWindow));
  CHECK(window.accept(top - kWindow + 1));
  CHECK_FALSE(window.accept(top - kWindow + 1));
}

TEST_CASE("A jump forward forgets the slots it passes over", "[udpx]") {
  ReplayWindow window;
  // Mark every number of one window, then jump by less than a window: the passed-over slots
  // must be free again for the new numbers that now map onto them.
  for (std::uint64_t n = 0; n < kWindow; ++n) {
    REQUIRE(window.accept(n));
  }
  REQUIRE(window.accept(kWindow + 1000));
  for (std::uint64_t n = kWindow; n < kWindow + 1000; ++n) {
    REQUIRE(window.may_accept(n));
  }
  CHECK_FALSE(window.may_accept(1000));     // now too old
  CHECK(window.may_accept(1001) == false);  // still in the window and seen
  // A jump of more than a window clears everything.
  REQUIRE(window.accept(10 * kWindow));
  CHECK(window.may_accept(10 * kWindow - 1));
  CHECK(window.may_accept(9 * kWindow + 1));
}

TEST_CASE("Random arrivals match a model that remembers every number", "[udpx]") {
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 random(seed);
    ReplayWindow window;
    std::set<std::uint64_t> seen;
    std::uint64_t highest = 0;
    bool any = false;
    std::uint64_t next = 0;
    for (int step = 0; step < 40000; ++step) {
      std::uint64_t n = 0;
      switch (random() % 5) {
        case 0:  // replay of something recent or old
          n = next > 0 ? next - 1 - random() % (next < 2 * kWindow ? next : 2 * kWindow) : 0;
          break;
        case 1:  // a jump forward, sometimes beyond the window
          next += random() % (random() % 50 == 0 ? 3 * kWindow : 3000);
          n = next++;
          break;
        default:  // in order, with small reordering
          n = next + random() % 4;
          next = n + 1;
          break;
      }
      const bool model = !any || n > highest || (highest - n < kWindow && !seen.contains(n));
      INFO("seed " << seed << " step " << step << " n " << n);
      REQUIRE(window.may_accept(n) == model);
      REQUIRE(window.accept(n) == model);
      if (model) {
        seen.insert(n);
        if (!any || n > highest) {
          highest = n;
        }
        any = true;
      }
    }
  }
}
