#include "protocol/mode_e/stripe_share.hpp"

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::mode_e::format_stripe_share;
using gridftp::protocol::mode_e::parse_stripe_share;
using gridftp::protocol::mode_e::share_of_mover;
using gridftp::protocol::mode_e::StripeShare;

TEST_CASE("A stripe share parses and formats as stripes and ascending indices", "[stripe_share]") {
  const auto share = parse_stripe_share("4 1,3");
  REQUIRE(share.has_value());
  CHECK(share->stripes == 4);
  CHECK(share->indices == std::vector<unsigned>{1, 3});
  CHECK(format_stripe_share(*share) == "4 1,3");
  const auto again = parse_stripe_share(format_stripe_share(StripeShare{7, {0, 2, 6}}));
  REQUIRE(again.has_value());
  CHECK(*again == StripeShare{7, {0, 2, 6}});
}

TEST_CASE("A stripe share with an index outside, out of order or missing is refused",
          "[stripe_share]") {
  for (const char* bad :
       {"", "4", "4 ", "0 0", "4 4", "4 2,1", "4 1,1", "4 1,", "x 1", "4 -1", "300 1", "4 1 2"}) {
    INFO(bad);
    const auto share = parse_stripe_share(bad);
    REQUIRE_FALSE(share.has_value());
    CHECK(share.error() == gridftp::protocol::Errc::BadArgument);
  }
}

TEST_CASE("Movers share the stripes round robin, each stripe to exactly one", "[stripe_share]") {
  CHECK(share_of_mover(5, 2, 0).indices == std::vector<unsigned>{0, 2, 4});
  CHECK(share_of_mover(5, 2, 1).indices == std::vector<unsigned>{1, 3});
  // Fewer stripes than movers: the last movers send nothing.
  CHECK(share_of_mover(2, 3, 2).indices.empty());
  for (unsigned stripes = 1; stripes <= 9; ++stripes) {
    for (unsigned movers = 1; movers <= 4; ++movers) {
      std::vector<int> senders(stripes, 0);
      for (unsigned mover = 0; mover < movers; ++mover)
        for (const auto index : share_of_mover(stripes, movers, mover).indices) ++senders[index];
      for (const auto count : senders) CHECK(count == 1);
    }
  }
}
