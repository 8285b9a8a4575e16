#include "protocol/control/passive_reply.hpp"

#include <string_view>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::control::eprt_argument_for;
using gridftp::protocol::control::HostPort;
using gridftp::protocol::control::parse_epsv_reply;
using gridftp::protocol::control::parse_pasv_reply;
using gridftp::protocol::control::port_argument_for;

TEST_CASE("parse_pasv_reply reads the Globus 227 text", "[control][address]") {
  const auto address = parse_pasv_reply("Entering Passive Mode (127,0,0,1,206,57)");
  REQUIRE(address);
  CHECK(address->address == "127.0.0.1");
  CHECK(address->port == 206 * 256 + 57);
}

TEST_CASE("parse_pasv_reply accepts text without parentheses", "[control][address]") {
  const auto address = parse_pasv_reply("=10,1,2,3,0,21");
  REQUIRE(address);
  CHECK(address->address == "10.1.2.3");
  CHECK(address->port == 21);
}

TEST_CASE("parse_pasv_reply rejects malformed numbers", "[control][address]") {
  const std::string_view bad =
      GENERATE(as<std::string_view>{}, "Entering Passive Mode", "(127,0,0,1,206)",
               "(127,0,0,256,1,1)", "(127,0,0,1,1,)", "(127;0;0;1;1;1)", "(1,2,3,4,5,99999)");
  CHECK(parse_pasv_reply(bad).error() == Errc::BadHostPort);
}

TEST_CASE("parse_epsv_reply reads the RFC 2428 form", "[control][address]") {
  const auto address = parse_epsv_reply("Entering Extended Passive Mode (|||43303|)");
  REQUIRE(address);
  CHECK(address->address.empty());
  CHECK(address->port == 43303);
}

TEST_CASE("parse_epsv_reply reads the Globus form with an address", "[control][address]") {
  const auto address = parse_epsv_reply("Entering Extended Passive Mode (|2|::1|49455|)");
  REQUIRE(address);
  CHECK(address->address == "::1");
  CHECK(address->port == 49455);
}

TEST_CASE("parse_epsv_reply accepts another delimiter", "[control][address]") {
  const auto address = parse_epsv_reply("(!!!2121!)");
  REQUIRE(address);
  CHECK(address->port == 2121);
}

TEST_CASE("parse_epsv_reply rejects malformed groups", "[control][address]") {
  const std::string_view bad =
      GENERATE(as<std::string_view>{}, "no parens", "(|||)", "(|||0|)", "(|||65536|)", "(|||12a|)",
               "(||12|)", "(|||12|x)", "(|||12|");
  CHECK(parse_epsv_reply(bad).error() == Errc::BadHostPort);
  CHECK(parse_epsv_reply("(|3|x|12|)").error() == Errc::UnsupportedAddressFamily);
}

TEST_CASE("format_port_argument round-trips through parse_pasv_reply", "[control][address]") {
  const auto port = static_cast<std::uint16_t>(GENERATE(1, 255, 256, 52793, 65535));
  const auto text = port_argument_for({"192.168.7.9", port});
  REQUIRE(text);
  const auto back = parse_pasv_reply("(" + *text + ")");
  REQUIRE(back);
  CHECK(back->address == "192.168.7.9");
  CHECK(back->port == port);
}

TEST_CASE("format_port_argument refuses non-IPv4 hosts", "[control][address]") {
  const std::string_view host =
      GENERATE(as<std::string_view>{}, "::1", "", "localhost", "1.2.3", "1.2.3.4.5", "1.2.3.256");
  CHECK(port_argument_for({std::string(host), 21}).error() == Errc::BadHostPort);
}

TEST_CASE("format_eprt_argument picks the family from the host", "[control][address]") {
  CHECK(*eprt_argument_for({"127.0.0.1", 5000}) == "|1|127.0.0.1|5000|");
  CHECK(*eprt_argument_for({"::1", 45291}) == "|2|::1|45291|");
  CHECK(eprt_argument_for({"", 1}).error() == Errc::BadHostPort);
}
