#include "protocol/control/feat.hpp"

#include <algorithm>

#include <catch2/catch.hpp>

using gridftp::protocol::control::feat_reply;

namespace {

bool lists(const gridftp::protocol::control::Reply& reply, const std::string& line) {
  return std::find(reply.lines.begin(), reply.lines.end(), line) != reply.lines.end();
}

}  // namespace

TEST_CASE("FEAT lists DCAU with GSI and UDPX where it is offered, before End.", "[control]") {
  const auto plain = feat_reply(false, false, false);
  CHECK(plain.code == 211);
  CHECK_FALSE(lists(plain, " DCAU"));
  CHECK_FALSE(lists(plain, " UDPX"));
  CHECK_FALSE(lists(plain, " AUTH TLS"));
  const auto gsi = feat_reply(true, false, true);
  CHECK(lists(gsi, " DCAU"));
  CHECK(lists(gsi, " UDPX"));
  CHECK(gsi.lines.back() == "End.");
  // UDPX without GSI: a server that allows unauthenticated keys (docs/UDPX.md §4.1).
  const auto unauthenticated = feat_reply(false, true, true);
  CHECK_FALSE(lists(unauthenticated, " DCAU"));
  CHECK(lists(unauthenticated, " UDPX"));
  CHECK(lists(unauthenticated, " AUTH TLS"));
  CHECK(unauthenticated.lines.back() == "End.");
}
