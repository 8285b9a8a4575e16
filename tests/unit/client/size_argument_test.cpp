#include "client/size_argument.hpp"

#include <catch2/catch.hpp>

using gridftp::client::parse_size_argument;

TEST_CASE("parse_size_argument reads bytes and K, M, G as globus-url-copy does", "[client][cli]") {
  CHECK(parse_size_argument("0") == 0U);
  CHECK(parse_size_argument("65536") == 65536U);
  CHECK(parse_size_argument("2k") == 2048U);  // guc -len 2k copies 2048 bytes
  CHECK(parse_size_argument("64K") == 65536U);
  CHECK(parse_size_argument("4M") == 4U * 1024 * 1024);
  CHECK(parse_size_argument("1g") == 1024U * 1024 * 1024);
  CHECK(parse_size_argument("5G") == 5ULL * 1024 * 1024 * 1024);
}

TEST_CASE("parse_size_argument refuses what is not a size", "[client][cli]") {
  CHECK_FALSE(parse_size_argument(""));
  CHECK_FALSE(parse_size_argument("K"));
  CHECK_FALSE(parse_size_argument("1x"));
  CHECK_FALSE(parse_size_argument("-1"));
  CHECK_FALSE(parse_size_argument(" 1"));
  CHECK_FALSE(parse_size_argument("1.5M"));
  CHECK_FALSE(parse_size_argument("1KB"));
  CHECK_FALSE(parse_size_argument("99999999999999999999"));
  CHECK_FALSE(parse_size_argument("17179869184G"));  // 2^34 GiB overflows 64 bits
}
