#include "server/session/transfer_settings.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using protocol::restart::ByteRangeSet;

ByteRangeSet ranges_of(std::uint64_t start, std::uint64_t end) {
  ByteRangeSet ranges;
  ranges.insert(start, end);
  return ranges;
}

TEST_CASE("TransferSettings start at the RFC 959 defaults", "[session]") {
  const TransferSettings settings;
  CHECK(settings.ascii);
  CHECK(std::string(settings.type_name()) == "ASCII");
  CHECK_FALSE(settings.mode_e);
  CHECK(settings.parallelism == 1);
  CHECK(settings.marker_seconds == 5);
  CHECK(settings.restart_offset == 0);
  CHECK_FALSE(settings.restart_ranges);
  CHECK_FALSE(settings.allocated_bytes);
}

TEST_CASE("TransferSettings names TYPE I as BINARY", "[session]") {
  TransferSettings settings;
  settings.ascii = false;
  CHECK(std::string(settings.type_name()) == "BINARY");
}

TEST_CASE("A REST offset replaces a REST range list", "[session][restart]") {
  TransferSettings settings;
  settings.restart_with(ranges_of(0, 100));
  settings.restart_at(42);
  CHECK(settings.restart_offset == 42);
  CHECK_FALSE(settings.restart_ranges);
}

TEST_CASE("A REST range list replaces a REST offset", "[session][restart]") {
  TransferSettings settings;
  settings.restart_at(42);
  settings.restart_with(ranges_of(0, 100));
  CHECK(settings.restart_offset == 0);
  REQUIRE(settings.restart_ranges);
  CHECK(*settings.restart_ranges == ranges_of(0, 100));
}

TEST_CASE("A transfer uses the REST offset up", "[session][restart]") {
  TransferSettings settings;
  settings.restart_at(4096);
  CHECK(settings.take_restart_offset() == 4096);
  CHECK(settings.take_restart_offset() == 0);
  CHECK(settings.restart_offset == 0);
}

TEST_CASE("A transfer uses the REST range list up", "[session][restart]") {
  TransferSettings settings;
  settings.restart_with(ranges_of(10, 20));
  const auto taken = settings.take_restart_ranges();
  REQUIRE(taken);
  CHECK(*taken == ranges_of(10, 20));
  CHECK_FALSE(settings.take_restart_ranges());
}

TEST_CASE("An upload uses the ALLO size up", "[session]") {
  TransferSettings settings;
  settings.allocated_bytes = 0;  // ALLO 0 is a size too: an empty file
  CHECK(settings.take_allocated_bytes() == std::optional<std::uint64_t>(0));
  CHECK_FALSE(settings.take_allocated_bytes());
}

}  // namespace
}  // namespace gridftp::server
