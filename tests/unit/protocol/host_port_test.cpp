#include "protocol/control/host_port.hpp"

#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::control::format_eprt_argument;
using gridftp::protocol::control::format_port_argument;
using gridftp::protocol::control::HostPort;
using gridftp::protocol::control::parse_eprt_argument;
using gridftp::protocol::control::parse_named_endpoint;
using gridftp::protocol::control::parse_port_argument;

TEST_CASE("parse_port_argument reads h1,h2,h3,h4,p1,p2", "[control][host_port]") {
  const auto parsed = parse_port_argument("127,0,0,1,206,57");
  REQUIRE(parsed.has_value());
  CHECK(parsed->address == "127.0.0.1");
  CHECK(parsed->port == 206 * 256 + 57);
  CHECK_FALSE(parsed->is_ipv6);
}

TEST_CASE("parse_port_argument accepts the field boundaries 0 and 255", "[control][host_port]") {
  auto [text, address, port] = GENERATE(table<std::string, std::string, int>({
      {"0,0,0,0,0,1", "0.0.0.0", 1},
      {"255,255,255,255,255,255", "255.255.255.255", 65535},
      {"10,1,2,3,0,255", "10.1.2.3", 255},
      {"10,1,2,3,1,0", "10.1.2.3", 256},
      {"192,168,001,010,004,000", "192.168.1.10", 1024},
  }));
  const auto parsed = parse_port_argument(text);
  REQUIRE(parsed.has_value());
  CHECK(parsed->address == address);
  CHECK(parsed->port == port);
}

TEST_CASE("parse_port_argument rejects every malformed form", "[control][host_port]") {
  const std::string text = GENERATE(
      std::string(""), std::string("1"), std::string("1,2,3,4,5"), std::string("256,0,0,1,4,0"),
      std::string("1,2,3,4,256,0"), std::string("1,2,3,4,4,256"), std::string("1,2,3,4,0,0"),
      std::string("127,0,0,1,0,0"), std::string("a,b,c,d,e,f"), std::string("1,2,3,4,5,x"),
      std::string("-1,2,3,4,5,6"), std::string("1,2,3,4,5,+6"), std::string(" 1,2,3,4,5,6"),
      std::string("1,2,3,4,5,6 "), std::string("1, 2,3,4,5,6"), std::string("1,,3,4,5,6"),
      std::string("1,2,3,4,5,"), std::string(",1,2,3,4,5,6"), std::string("1.2.3.4.5.6"),
      std::string("000001,2,3,4,5,6"), std::string("99999999999,2,3,4,5,6"),
      std::string("4294967297,0,0,1,4,0"), std::string("(1,2,3,4,5,6)"),
      std::string("0x1,2,3,4,5,6"));
  INFO("PORT " << text);
  const auto parsed = parse_port_argument(text);
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error() == Errc::BadHostPort);
  CHECK(parsed.error() == gridftp::Condition::BadAddress);
}

TEST_CASE("parse_port_argument rejects a seventh field or a trailing comma",
          "[control][host_port]") {
  // RFC 959: exactly six fields. Text after the sixth must not be silently ignored.
  const std::string text =
      GENERATE(std::string("1,2,3,4,5,6,7"), std::string("1,2,3,4,5,6,"),
               std::string("127,0,0,1,4,0,junk"), std::string("1,2,3,4,5,6,7,8"));
  INFO("PORT " << text);
  const auto parsed = parse_port_argument(text);
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error() == Errc::BadHostPort);
}

TEST_CASE("format_port_argument writes h1,h2,h3,h4,p1,p2", "[control][host_port]") {
  CHECK(format_port_argument(HostPort{"127.0.0.1", 52793, false}) == "127,0,0,1,206,57");
  CHECK(format_port_argument(HostPort{"10.0.0.1", 1, false}) == "10,0,0,1,0,1");
  CHECK(format_port_argument(HostPort{"255.255.255.255", 65535, false}) ==
        "255,255,255,255,255,255");
  CHECK(format_port_argument(HostPort{"1.2.3.4", 256, false}) == "1,2,3,4,1,0");
}

TEST_CASE("PORT argument round-trips through parse and format", "[control][host_port]") {
  const std::string text =
      GENERATE(std::string("127,0,0,1,206,57"), std::string("0,0,0,0,0,1"),
               std::string("255,255,255,255,255,255"), std::string("192,168,10,20,4,0"));
  const auto parsed = parse_port_argument(text);
  REQUIRE(parsed.has_value());
  CHECK(format_port_argument(*parsed) == text);
}

TEST_CASE("PORT round-trips for every port from 1 to 65535", "[control][host_port]") {
  for (unsigned port = 1; port <= 65535; ++port) {
    const HostPort original{"10.20.30.40", static_cast<std::uint16_t>(port), false};
    const auto parsed = parse_port_argument(format_port_argument(original));
    REQUIRE(parsed.has_value());
    REQUIRE(parsed->port == port);
    REQUIRE(parsed->address == "10.20.30.40");
  }
}

TEST_CASE("parse_eprt_argument reads IPv4 and IPv6 forms", "[control][host_port]") {
  auto [text, address, port, ipv6] = GENERATE(table<std::string, std::string, int, bool>({
      {"|1|132.235.1.2|6275|", "132.235.1.2", 6275, false},
      {"|2|1080::8:800:200C:417A|5282|", "1080::8:800:200C:417A", 5282, true},
      {"|2|::1|1|", "::1", 1, true},
      {"|1|0.0.0.0|65535|", "0.0.0.0", 65535, false},
      {"!1!10.0.0.1!2811!", "10.0.0.1", 2811, false},
      {"~2~::ffff:10.0.0.1~80~", "::ffff:10.0.0.1", 80, true},
      {"#1#255.255.255.255#21#", "255.255.255.255", 21, false},
  }));
  const auto parsed = parse_eprt_argument(text);
  REQUIRE(parsed.has_value());
  CHECK(parsed->address == address);
  CHECK(parsed->port == port);
  CHECK(parsed->is_ipv6 == ipv6);
}

TEST_CASE("parse_eprt_argument rejects an address family other than 1 or 2",
          "[control][host_port]") {
  const std::string text = GENERATE(std::string("|3|1.2.3.4|21|"), std::string("|0|1.2.3.4|21|"),
                                    std::string("|12|1.2.3.4|21|"), std::string("|01|1.2.3.4|21|"));
  const auto parsed = parse_eprt_argument(text);
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error() == Errc::UnsupportedAddressFamily);
  CHECK(parsed.error() == gridftp::Condition::UnsupportedNetworkProtocol);
}

TEST_CASE("parse_eprt_argument rejects every malformed form", "[control][host_port]") {
  const std::string text = GENERATE(
      std::string(""), std::string("|"), std::string("||||"), std::string("|1|1.2.3.4|21"),
      std::string("1|1.2.3.4|21|"), std::string("|1|1.2.3.4|21!"), std::string("!1|1.2.3.4|21!"),
      std::string("|1!1.2.3.4!21|"), std::string("|1|1.2.3.4|21|x|"), std::string("|1|1.2.3.4||"),
      std::string("|1|1.2.3.4|0|"), std::string("|1|1.2.3.4|65536|"),
      std::string("|1|1.2.3.4|99999|"), std::string("|1|1.2.3.4|-1|"),
      std::string("|1|1.2.3.4|2a|"), std::string("|1|1.2.3.4| 21|"), std::string("|1|1.2.3|21|"),
      std::string("|1|1.2.3.4.5|21|"), std::string("|1|256.1.1.1|21|"), std::string("|1|::1|21|"),
      std::string("|1||21|"), std::string("|2|1.2.3.4|21|"), std::string("|2|::g|21|"),
      std::string("|2|:|21|"), std::string("|2||21|"), std::string("|1|a.b.c.d|21|"),
      std::string("|1|1..2.3|21|"), std::string(" |1|1.2.3.4|21|"),
      std::string("\x01"
                  "1\x01"
                  "1.2.3.4\x01"
                  "21\x01"),
      std::string("\x7f"
                  "1\x7f"
                  "1.2.3.4\x7f"
                  "21\x7f"),
      std::string("|2|") + std::string(46, ':') + "|21|");
  INFO("EPRT " << text);
  const auto parsed = parse_eprt_argument(text);
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error() == Errc::BadHostPort);
}

TEST_CASE("format_eprt_argument writes |af|addr|port|", "[control][host_port]") {
  CHECK(format_eprt_argument(HostPort{"132.235.1.2", 6275, false}) == "|1|132.235.1.2|6275|");
  CHECK(format_eprt_argument(HostPort{"::1", 5282, true}) == "|2|::1|5282|");
  CHECK(format_eprt_argument(HostPort{"1.2.3.4", 65535, false}) == "|1|1.2.3.4|65535|");
}

TEST_CASE("EPRT argument round-trips through parse and format", "[control][host_port]") {
  const std::string text =
      GENERATE(std::string("|1|132.235.1.2|6275|"), std::string("|2|::1|1|"),
               std::string("|2|fe80::1:2:3:4|65535|"), std::string("|1|0.0.0.0|2811|"));
  const auto parsed = parse_eprt_argument(text);
  REQUIRE(parsed.has_value());
  CHECK(format_eprt_argument(*parsed) == text);
}

TEST_CASE("parse_named_endpoint reads a configured host:port", "[control][host_port]") {
  const auto named = parse_named_endpoint("movers.dtn.svc:6001");
  REQUIRE(named.has_value());
  CHECK(named->host == "movers.dtn.svc");
  CHECK(named->port == 6001);
  const auto v4 = parse_named_endpoint("10.0.0.7:65535");
  REQUIRE(v4.has_value());
  CHECK(v4->host == "10.0.0.7");
  CHECK(v4->port == 65535);
  const auto v6 = parse_named_endpoint("[::1]:2811");
  REQUIRE(v6.has_value());
  CHECK(v6->host == "::1");
  CHECK(v6->port == 2811);
}

TEST_CASE("parse_named_endpoint refuses what is not host:port", "[control][host_port]") {
  const std::string text =
      GENERATE(std::string("mover"), std::string("mover:"), std::string(":6001"),
               std::string("[]:6001"), std::string("mover:0"), std::string("mover:65536"),
               std::string("mover:60x1"), std::string("mover:-1"));
  const auto named = parse_named_endpoint(text);
  REQUIRE_FALSE(named.has_value());
  CHECK(named.error() == Errc::BadHostPort);
}
