#include "client/report/human_units.hpp"

#include <limits>

#include <catch2/catch.hpp>

using gridftp::client::report::format_bytes;
using gridftp::client::report::format_duration;
using gridftp::client::report::format_rate;
using namespace std::chrono_literals;

TEST_CASE("format_bytes uses binary units with three significant digits", "[client][report]") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1) == "1 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1.00 KiB");
  CHECK(format_bytes(1536) == "1.50 KiB");
  CHECK(format_bytes(12 * 1024 * 1024 + 300 * 1024) == "12.3 MiB");
  CHECK(format_bytes(std::uint64_t{2} << 30) == "2.00 GiB");
  CHECK(format_bytes(std::uint64_t{640} << 20) == "640 MiB");
  CHECK(format_bytes(std::numeric_limits<std::uint64_t>::max()) == "16.0 EiB");
}

TEST_CASE("format_rate appends per second and refuses nonsense", "[client][report]") {
  CHECK(format_rate(0) == "0 B/s");
  CHECK(format_rate(1.5 * 1024 * 1024) == "1.50 MiB/s");
  CHECK(format_rate(-1) == "-");
  CHECK(format_rate(std::numeric_limits<double>::quiet_NaN()) == "-");
  CHECK(format_rate(std::numeric_limits<double>::infinity()) == "-");
}

TEST_CASE("format_duration reads as seconds, minutes or hours", "[client][report]") {
  CHECK(format_duration(0s) == "0s");
  CHECK(format_duration(1499ms) == "1s");
  CHECK(format_duration(59s) == "59s");
  CHECK(format_duration(60s) == "1:00");
  CHECK(format_duration(65s) == "1:05");
  CHECK(format_duration(3599s) == "59:59");
  CHECK(format_duration(3600s) == "1:00:00");
  CHECK(format_duration(3723s) == "1:02:03");
  CHECK(format_duration(-5s) == "0s");
}
