// SITE SETNETSTACK arguments (docs/UDPX.md §7): what globus-url-copy sends for -udt and
// -dcstack, gridftpd's udpx options, and every refusal with what it names.
#include "protocol/control/net_stack.hpp"

#include <catch2/catch.hpp>

using namespace gridftp::protocol::control;

namespace {
NetStack stack_of(std::string_view argument) {
  auto parsed = parse_net_stack(argument);
  REQUIRE(std::holds_alternative<NetStack>(parsed));
  return std::get<NetStack>(parsed);
}
NetStackError error_of(std::string_view argument) {
  auto parsed = parse_net_stack(argument);
  REQUIRE(std::holds_alternative<NetStackError>(parsed));
  return std::get<NetStackError>(parsed);
}
}  // namespace

TEST_CASE("default and tcp select TCP data connections", "[netstack]") {
  CHECK(stack_of("default").kind == NetStackKind::Tcp);
  CHECK(stack_of("TCP").kind == NetStackKind::Tcp);
  CHECK(stack_of(" default ").kind == NetStackKind::Tcp);
}

TEST_CASE("udpx with and without options, and with the gsi element", "[netstack]") {
  const auto plain = stack_of("udpx");
  CHECK(plain.kind == NetStackKind::Udpx);
  CHECK_FALSE(plain.rate_bps);
  const auto full = stack_of("udpx:rate=900M;min=10M;policy=FAIR;mtu=1400,gsi");
  CHECK(full.kind == NetStackKind::Udpx);
  CHECK(full.rate_bps == 900'000'000U);
  CHECK(full.min_bps == 10'000'000U);
  CHECK(full.policy == Policy::Fair);
  CHECK(full.mtu == 1400U);
  CHECK(stack_of("UDPX:Rate=1G;").rate_bps == 1'000'000'000U);
}

TEST_CASE("udt is refused by name, whatever follows it", "[netstack]") {
  CHECK(error_of("udt").kind == NetStackError::Kind::UdtRefused);
  CHECK(error_of("udt,gsi").kind == NetStackError::Kind::UdtRefused);
  CHECK(error_of("UDT:foo").kind == NetStackError::Kind::UdtRefused);
}

TEST_CASE("Unknown drivers and bad udpx options are named", "[netstack]") {
  CHECK(error_of("").kind == NetStackError::Kind::UnknownDriver);
  const auto unknown = error_of("quic");
  CHECK(unknown.kind == NetStackError::Kind::UnknownDriver);
  CHECK(unknown.detail == "quic");
  CHECK(error_of("gsi").kind == NetStackError::Kind::UnknownDriver);  // gsi only above udpx
  CHECK(error_of("tcp,gsi").kind == NetStackError::Kind::UnknownDriver);
  CHECK(error_of("udpx,udpx").kind == NetStackError::Kind::UnknownDriver);
  CHECK(error_of("default:x=1").kind == NetStackError::Kind::UnknownDriver);
  for (const auto* bad : {"udpx:rate=", "udpx:rate=0", "udpx:rate=12X", "udpx:rate=-1",
                          "udpx:policy=greedy", "udpx:mtu=100", "udpx:mtu=65000", "udpx:speed=1G",
                          "udpx:rate", "udpx:rate=99999999999999999999"}) {
    INFO(bad);
    const auto error = error_of(bad);
    CHECK(error.kind == NetStackError::Kind::BadOption);
  }
  CHECK(error_of("udpx:rate=10M;min=20M").kind == NetStackError::Kind::BadOption);
}

TEST_CASE("Rates take decimal k, M and G suffixes", "[netstack]") {
  CHECK(parse_rate("1500").value() == 1500U);
  CHECK(parse_rate("2k").value() == 2'000U);
  CHECK(parse_rate("300m").value() == 300'000'000U);
  CHECK(parse_rate("10G").value() == 10'000'000'000U);
  CHECK_FALSE(parse_rate(""));
  CHECK_FALSE(parse_rate("G"));
  CHECK_FALSE(parse_rate("1.5G"));
  CHECK_FALSE(parse_rate("20000000000G"));
}

TEST_CASE("The effective UDPX settings read as the 200 reply shows them", "[netstack]") {
  CHECK(describe_udpx(900'000'000, 10'000'000, Policy::Fair) ==
        "rate=900000000;min=10000000;policy=fair");
}
