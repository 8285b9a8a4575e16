#include "client/data/udpx_path_memory.hpp"

#include <catch2/catch.hpp>

using gridftp::client::format_path_rates;
using gridftp::client::fresh_path_rate;
using gridftp::client::NetworkFigures;
using gridftp::client::parse_path_rates;
using gridftp::client::PathRate;
using gridftp::client::rate_worth_remembering;
using gridftp::client::update_path_rate;

TEST_CASE("UDPX path memory reads its lines and skips malformed ones", "[client][udpx]") {
  const auto rates = parse_path_rates(
      "get@10.0.0.2 280000000 1000\n"
      "garbage\n"
      "put@10.0.0.2 0 1000\n"  // no rate
      "get@::1 9000000000 2000 extra\n"
      "get@10.0.0.3 12x 1000\n"
      "get@10.0.0.2 250000000 1500\n");  // a later line for the same path wins
  REQUIRE(rates == std::vector<PathRate>{{"get@10.0.0.2", 250'000'000, 1500}});
  CHECK(parse_path_rates(format_path_rates(rates)) == rates);
}

TEST_CASE("UDPX path memory answers only for a recent entry of the same path", "[client][udpx]") {
  std::vector<PathRate> rates;
  update_path_rate(rates, {"get@10.0.0.2", 280'000'000, 1000});
  update_path_rate(rates, {"put@10.0.0.2", 90'000'000, 1000});
  update_path_rate(rates, {"get@10.0.0.2", 260'000'000, 2000});
  CHECK(rates.size() == 2);
  CHECK(fresh_path_rate(rates, "get@10.0.0.2", 2000 + 3600) == 260'000'000);
  CHECK(fresh_path_rate(rates, "put@10.0.0.2", 1000) == 90'000'000);
  CHECK_FALSE(fresh_path_rate(rates, "get@10.0.0.9", 2000));
  CHECK_FALSE(fresh_path_rate(rates, "get@10.0.0.2", 2000 + 25 * 3600));  // a day old
  CHECK_FALSE(fresh_path_rate(rates, "get@10.0.0.2", 1500));              // from the future
}

TEST_CASE("Only a transfer that left Startup is worth remembering", "[client][udpx]") {
  NetworkFigures figures;
  figures.bytes = 512 << 20;
  figures.rate_bps = 250e6;  // 17 s
  figures.rtt_ms = 300;
  figures.loss = 0.05;
  // The file rate raised by the loss its retransmissions made up for: the network rate.
  CHECK(rate_worth_remembering(figures) == static_cast<std::uint64_t>(250e6 / 0.95));
  figures.bytes = 5 << 20;  // 0.17 s: still in Startup
  CHECK_FALSE(rate_worth_remembering(figures));
  figures.bytes = 80 << 20;  // 2.7 s, under ten round trips of 300 ms
  CHECK_FALSE(rate_worth_remembering(figures));
  figures.rtt_ms = 100;
  CHECK(rate_worth_remembering(figures));
}
