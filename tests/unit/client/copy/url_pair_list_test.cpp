#include "client/copy/url_pair_list.hpp"

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::client::parse_url_pairs;
using gridftp::protocol::Errc;

TEST_CASE("parse_url_pairs reads pairs and skips comments and blanks", "[client][cli]") {
  std::size_t bad_line = 0;
  const auto pairs = parse_url_pairs(
      "# copy list\r\n\nftp://h/a  file:///tmp/a\r\n  \t\n ftp://h/b\tfile:///tmp/b", bad_line);
  REQUIRE(pairs);
  REQUIRE(pairs->size() == 2);
  CHECK((*pairs)[0].source == "ftp://h/a");
  CHECK((*pairs)[0].dest == "file:///tmp/a");
  CHECK((*pairs)[1].source == "ftp://h/b");
  CHECK((*pairs)[1].dest == "file:///tmp/b");
}

TEST_CASE("parse_url_pairs names the first bad line", "[client][cli]") {
  std::size_t bad_line = 0;
  const auto pairs = parse_url_pairs("a b\nonly-one\na b c\n", bad_line);
  CHECK(pairs.error() == Errc::BadArgument);
  CHECK(bad_line == 2);
}

TEST_CASE("parse_url_pairs accepts an empty file", "[client][cli]") {
  std::size_t bad_line = 0;
  const auto pairs = parse_url_pairs("", bad_line);
  REQUIRE(pairs);
  CHECK(pairs->empty());
}
