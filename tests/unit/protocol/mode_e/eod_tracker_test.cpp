#include "protocol/mode_e/eod_tracker.hpp"

#include <cstdint>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/mode_e_errors.hpp"

using gridftp::protocol::mode_e::EodTracker;
using gridftp::protocol::mode_e::Errc;

TEST_CASE("EodTracker completes when EOF+EOD arrives last (observed get)", "[mode_e]") {
  // docs/WIRE.md §2.4 get: conns 1-3 send 08, conn4 sends 48 off=4 (decoded as Eof then Eod).
  EodTracker tracker;
  REQUIRE(tracker.on_data());
  for (int i = 0; i < 3; ++i) {
    REQUIRE(tracker.on_eod());
    CHECK_FALSE(tracker.is_complete());
  }
  REQUIRE(tracker.on_eof(4));
  CHECK_FALSE(tracker.is_complete());
  REQUIRE(tracker.on_eod());
  CHECK(tracker.is_complete());
  CHECK(tracker.eods_received() == 4);
  CHECK(tracker.eods_expected() == 4);
}

TEST_CASE("EodTracker waits for EODs after an early EOF (observed put)", "[mode_e]") {
  // docs/WIRE.md §2.4 put: conn1 sends 48 off=4 first; three bare EODs follow on other connections.
  EodTracker tracker;
  REQUIRE(tracker.on_data());
  REQUIRE(tracker.on_eof(4));
  REQUIRE(tracker.on_eod());
  REQUIRE(tracker.on_data());  // conn2 is still sending
  REQUIRE(tracker.on_eod());
  REQUIRE(tracker.on_eod());
  CHECK_FALSE(tracker.is_complete());
  REQUIRE(tracker.on_eod());
  CHECK(tracker.is_complete());
}

TEST_CASE("EodTracker is never complete without an EOF", "[mode_e]") {
  EodTracker tracker;
  CHECK_FALSE(tracker.is_complete());
  for (int i = 0; i < 100; ++i) REQUIRE(tracker.on_eod());
  CHECK_FALSE(tracker.is_complete());
  CHECK_FALSE(tracker.eods_expected().has_value());
}

TEST_CASE("EodTracker accepts a repeated EOF with the same count", "[mode_e]") {
  EodTracker tracker;
  REQUIRE(tracker.on_eof(2));
  CHECK(tracker.on_eof(2));
  CHECK(tracker.eods_expected() == 2);
}

TEST_CASE("EodTracker rejects a second EOF with a different count", "[mode_e]") {
  EodTracker tracker;
  REQUIRE(tracker.on_eof(2));
  CHECK(tracker.on_eof(3).error() == Errc::ConflictingEofCount);
  CHECK(tracker.on_eof(1).error() == Errc::ConflictingEofCount);
}

TEST_CASE("EodTracker rejects more EODs than the EOF announced", "[mode_e]") {
  EodTracker tracker;
  REQUIRE(tracker.on_eof(2));
  REQUIRE(tracker.on_eod());
  REQUIRE(tracker.on_eod());
  CHECK(tracker.is_complete());
  CHECK(tracker.on_eod().error() == Errc::TooManyEods);
  CHECK(tracker.eods_received() == 2);
}

TEST_CASE("EodTracker rejects an EOF count below the EODs already seen", "[mode_e]") {
  EodTracker tracker;
  REQUIRE(tracker.on_eod());
  REQUIRE(tracker.on_eod());
  REQUIRE(tracker.on_eod());
  CHECK(tracker.on_eof(2).error() == Errc::TooManyEods);
  CHECK(tracker.on_eof(3));
  CHECK(tracker.is_complete());
}

TEST_CASE("EodTracker rejects an EOF count of 0 with data", "[mode_e]") {
  SECTION("data first") {
    EodTracker tracker;
    REQUIRE(tracker.on_data());
    CHECK(tracker.on_eof(0).error() == Errc::DataAfterLastEod);
  }
  SECTION("EOF first") {
    EodTracker tracker;
    REQUIRE(tracker.on_eof(0));
    CHECK(tracker.is_complete());
    CHECK(tracker.on_data().error() == Errc::DataAfterLastEod);
  }
  SECTION("an EOF+EOD header announcing 0 contradicts itself") {
    EodTracker tracker;
    REQUIRE(tracker.on_eof(0));
    CHECK(tracker.on_eod().error() == Errc::TooManyEods);
  }
}

TEST_CASE("EodTracker rejects data after every announced connection ended", "[mode_e]") {
  EodTracker tracker;
  REQUIRE(tracker.on_eof(1));
  REQUIRE(tracker.on_eod());
  CHECK(tracker.on_data().error() == Errc::DataAfterLastEod);
}

TEST_CASE("EodTracker completes an empty transfer on one connection", "[mode_e]") {
  // The observed reuse stream: "[a.txt] 48 off=2" on conn1 and "00 2 @0, 08" on conn2.
  EodTracker tracker;
  REQUIRE(tracker.on_eof(2));
  REQUIRE(tracker.on_eod());
  REQUIRE(tracker.on_data());
  REQUIRE(tracker.on_eod());
  CHECK(tracker.is_complete());
}

TEST_CASE("EodTracker errors fail the transfer", "[mode_e]") {
  const auto code = GENERATE(Errc::ConflictingEofCount, Errc::TooManyEods, Errc::DataAfterLastEod);
  const std::error_code error = code;
  CHECK(error == gridftp::Condition::TransferFailed);
}
