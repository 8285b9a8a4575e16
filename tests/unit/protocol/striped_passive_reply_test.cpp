#include "protocol/control/striped_passive_reply.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::control::HostPort;
using gridftp::protocol::control::parse_spas_reply;
using gridftp::protocol::control::spor_argument_for;

// The reply a Globus 13.24 frontend with two data nodes (-r 127.0.0.1:6001,127.0.0.1:6002) gave
// globus-url-copy -stripe on this project's test bed.
TEST_CASE("parse_spas_reply reads one address per stripe of a Globus cluster's reply",
          "[control][address][stripe]") {
  const std::vector<std::string> lines = {"229-Entering Striped Passive Mode.", " 127,0,0,1,175,53",
                                          " 127,0,0,1,160,12", "229 End"};
  const auto stripes = parse_spas_reply(lines);
  REQUIRE(stripes);
  REQUIRE(stripes->size() == 2);
  CHECK((*stripes)[0].address == "127.0.0.1");
  CHECK((*stripes)[0].port == 175 * 256 + 53);
  CHECK((*stripes)[1].port == 160 * 256 + 12);
}

TEST_CASE("parse_spas_reply reads IPv6 stripes and a one-line reply",
          "[control][address][stripe]") {
  const auto six = parse_spas_reply(
      {"229-Entering Striped Passive Mode.", " |2|::1|43927|", " |2|::1|43928|", "229 End"});
  REQUIRE(six);
  REQUIRE(six->size() == 2);
  CHECK((*six)[0].is_ipv6);
  CHECK((*six)[1].port == 43928);
  const auto one = parse_spas_reply({"229 Entering Striped Passive Mode (10,0,0,5,4,1)"});
  REQUIRE(one);
  REQUIRE(one->size() == 1);
  CHECK(one->front().address == "10.0.0.5");
  CHECK(one->front().port == 4 * 256 + 1);
}

TEST_CASE("parse_spas_reply refuses a stripe line that is no address, and an empty list",
          "[control][address][stripe]") {
  const auto bad = parse_spas_reply(
      {"229-Entering Striped Passive Mode.", " 127,0,0,1,175,53", " not an address", "229 End"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error() == Errc::BadHostPort);
  const auto none = parse_spas_reply({"229-Entering Striped Passive Mode.", "229 End"});
  REQUIRE_FALSE(none);
  CHECK(none.error() == Errc::BadHostPort);
  CHECK_FALSE(parse_spas_reply({"229"}));
  CHECK_FALSE(parse_spas_reply({" 300,0,0,1,1,1", "229 End"}));
}

TEST_CASE("spor_argument_for lists the stripes in order, as SPOR sends them",
          "[control][address][stripe]") {
  const std::vector<HostPort> stripes = {{"127.0.0.1", 44853, false}, {"127.0.0.1", 40972, false}};
  const auto argument = spor_argument_for(stripes);
  REQUIRE(argument);
  CHECK(*argument == "127,0,0,1,175,53 127,0,0,1,160,12");
  const auto mixed = spor_argument_for({{"127.0.0.1", 1, false}, {"::1", 2, true}});
  REQUIRE(mixed);
  CHECK(*mixed == "127,0,0,1,0,1 |2|::1|2|");
  REQUIRE_FALSE(spor_argument_for({}));
}
