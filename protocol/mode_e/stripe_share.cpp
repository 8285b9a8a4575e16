#include "protocol/mode_e/stripe_share.hpp"

#include "protocol/core/decimal.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::protocol::mode_e {

Result<StripeShare> parse_stripe_share(std::string_view text) {
  const auto bad = make_error(make_error_code(Errc::BadArgument));
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return bad;
  const auto stripes = parse_decimal(text.substr(0, space));
  if (!stripes || *stripes == 0 || *stripes > kMaxStripes) return bad;
  StripeShare share{static_cast<unsigned>(*stripes), {}};
  auto rest = text.substr(space + 1);
  while (true) {
    const auto comma = rest.find(',');
    const auto index = parse_decimal(rest.substr(0, comma));
    if (!index || *index >= share.stripes) return bad;
    if (!share.indices.empty() && *index <= share.indices.back()) return bad;
    share.indices.push_back(static_cast<unsigned>(*index));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return share;
}

std::string format_stripe_share(const StripeShare& share) {
  std::string text = std::to_string(share.stripes) + " ";
  for (std::size_t i = 0; i < share.indices.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(share.indices[i]);
  }
  return text;
}

StripeShare share_of_mover(unsigned stripes, unsigned movers, unsigned mover) {
  StripeShare share{stripes, {}};
  if (movers == 0) return share;
  for (unsigned i = mover; i < stripes; i += movers) share.indices.push_back(i);
  return share;
}

}  // namespace gridftp::protocol::mode_e
