#include "protocol/checksum/stored_checksum.hpp"

#include <string>
#include <string_view>

#include <catch2/catch.hpp>

using gridftp::protocol::checksum::FileVersion;
using gridftp::protocol::checksum::format_stored_checksum;
using gridftp::protocol::checksum::parse_stored_checksum;
using gridftp::protocol::checksum::StoredChecksum;

TEST_CASE("A stored checksum is written as the documented text", "[checksum]") {
  const StoredChecksum stored{{9, 1700000000, 123456789}, "11e60398"};
  CHECK(format_stored_checksum(stored) == "v1 9 1700000000.123456789 11e60398");
  CHECK(format_stored_checksum({{0, 0, 5}, "00000001"}) == "v1 0 0.000000005 00000001");
}

TEST_CASE("A stored checksum reads back what was written", "[checksum]") {
  const auto stored =
      GENERATE(StoredChecksum{{9, 1700000000, 123456789}, "11e60398"},
               StoredChecksum{{UINT64_MAX, INT64_MAX, 999999999}, std::string(128, 'f')},
               StoredChecksum{{0, 0, 0}, "d41d8cd98f00b204e9800998ecf8427e"});
  const auto parsed = parse_stored_checksum(format_stored_checksum(stored));
  REQUIRE(parsed);
  CHECK(parsed->version == stored.version);
  CHECK(parsed->hex == stored.hex);
}

TEST_CASE("A stored checksum rejects text it did not write", "[checksum]") {
  const std::string_view text = GENERATE(
      "", "v1", "v1 ", "v2 9 1700000000.123456789 11e60398", "v1 9 1700000000.123456789",
      "v1 9 1700000000.123456789 ", "v1 9 1700000000 11e60398", "v1 9 1700000000.12345678 11e60398",
      "v1 9 1700000000.1234567890 11e60398", "v1 -9 1700000000.123456789 11e60398",
      "v1 +9 1700000000.123456789 11e60398", "v1 9 -1.123456789 11e60398",
      "v1 9 1700000000.-23456789 11e60398", "v1 9 1700000000.123456789 11E60398",
      "v1 9 1700000000.123456789 11e6039g", "v1 9 1700000000.123456789 11e60398 ",
      "v1 9  1700000000.123456789 11e60398", "v1 18446744073709551616 0.000000000 01",
      "v1 9 9223372036854775808.000000000 01", "V1 9 1700000000.123456789 11e60398");
  CHECK_FALSE(parse_stored_checksum(text));
  CHECK_FALSE(parse_stored_checksum("v1 1 1.000000000 " + std::string(129, 'a')));
}

TEST_CASE("File versions differ in any of size, seconds and nanoseconds", "[checksum]") {
  const FileVersion version{9, 1700000000, 123456789};
  CHECK(version == FileVersion{9, 1700000000, 123456789});
  CHECK_FALSE(version == FileVersion{10, 1700000000, 123456789});
  CHECK_FALSE(version == FileVersion{9, 1700000001, 123456789});
  CHECK_FALSE(version == FileVersion{9, 1700000000, 123456788});
}
