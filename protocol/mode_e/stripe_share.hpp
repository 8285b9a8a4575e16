// Which receiving stripes one mover sends to in a striped send (docs/STRIPING.md): the frontend
// gives mover j of N the stripes i with i % N == j ("SITE STRIPE SEND <stripes> <i,i,...>",
// followed by SPOR with those stripes' addresses in the same order), so that every stripe has
// exactly one sender and the blocks each gets are those StripeLayout assigns it (GFD.20).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::mode_e {

inline constexpr unsigned kMaxStripes = 256;

struct StripeShare {
  unsigned stripes = 0;           // receiving stripes of the whole transfer
  std::vector<unsigned> indices;  // this sender's, ascending, each < stripes
  bool operator==(const StripeShare&) const = default;
};

// "4 1,3" -> {4, {1, 3}}. Errors: Errc::BadArgument for a missing part, stripes of 0 or over
// kMaxStripes, an index not below stripes, or indices not strictly ascending.
Result<StripeShare> parse_stripe_share(std::string_view text);
std::string format_stripe_share(const StripeShare& share);

// Mover `mover` of `movers`: stripes i of `stripes` with i % movers == mover (empty indices
// when it has none, as when there are fewer stripes than movers).
StripeShare share_of_mover(unsigned stripes, unsigned movers, unsigned mover);

}  // namespace gridftp::protocol::mode_e
