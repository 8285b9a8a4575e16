#include "client/url.hpp"

#include <string_view>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::client::parse_url;
using gridftp::client::percent_decode;
using gridftp::client::Scheme;
using gridftp::protocol::Errc;

TEST_CASE("parse_url reads an ftp URL with defaults", "[client][url]") {
  const auto url = parse_url("ftp://example.org/tmp/x/file");
  REQUIRE(url);
  CHECK(url->scheme == Scheme::Ftp);
  CHECK(url->host == "example.org");
  CHECK(url->port == 21);
  CHECK(url->path == "/tmp/x/file");
  CHECK_FALSE(url->has_user);
  CHECK(url->is_remote());
  CHECK(url->origin() == "ftp://example.org:21");
}

TEST_CASE("parse_url reads credentials, port and escapes", "[client][url]") {
  const auto url = parse_url("ftp://al%40ice:p%3Ass@w0rd@127.0.0.1:5811/dir%20a/f%25.txt");
  REQUIRE(url);
  CHECK(url->user == "al@ice");
  CHECK(url->password == "p:ss@w0rd");
  CHECK(url->host == "127.0.0.1");
  CHECK(url->port == 5811);
  CHECK(url->path == "/dir a/f%.txt");
}

TEST_CASE("parse_url knows the gsiftp and ftps defaults", "[client][url]") {
  CHECK(parse_url("gsiftp://h/p")->port == 2811);
  CHECK(parse_url("gsiftp://h/p")->scheme == Scheme::GsiFtp);
  CHECK(parse_url("FTPS://h/p")->scheme == Scheme::Ftps);
  CHECK(parse_url("ftps://h/p")->port == 21);
}

TEST_CASE("parse_url reads IPv6 literals", "[client][url]") {
  const auto url = parse_url("ftp://[::1]:2121/a/");
  REQUIRE(url);
  CHECK(url->host == "::1");
  CHECK(url->port == 2121);
  CHECK(url->is_directory());
  CHECK(url->origin() == "ftp://[::1]:2121");
  CHECK(parse_url("ftp://[fe80::1]/x")->port == 21);
}

TEST_CASE("parse_url gives a remote URL without a path the root", "[client][url]") {
  CHECK(parse_url("ftp://h")->path == "/");
  CHECK(parse_url("ftp://h:21")->path == "/");
}

TEST_CASE("parse_url reads file URLs and plain paths", "[client][url]") {
  CHECK(parse_url("file:///tmp/a%20b")->path == "/tmp/a b");
  CHECK(parse_url("file://localhost/tmp/a")->path == "/tmp/a");
  CHECK(parse_url("file:///tmp/a")->scheme == Scheme::File);
  CHECK(parse_url("relative/p%41th")->path == "relative/p%41th");
  CHECK_FALSE(parse_url("/abs/path")->is_remote());
}

TEST_CASE("parse_url rejects malformed URLs", "[client][url]") {
  const std::string_view bad =
      GENERATE(as<std::string_view>{}, "", "http://h/x", "ftp:///x", "ftp://:21/x", "ftp://h:0/x",
               "ftp://h:65536/x", "ftp://h:x/x", "ftp://h:/x", "ftp://[::1/x", "ftp://[]/x",
               "ftp://[::1]x/y", "ftp://h/%zz", "ftp://h/%4", "ftp://h/a%00b", "file://other/x",
               "file://nopath", "ftp://[[1]/x", "ftp://[host]/x", "ftp://h[1]/x", "ftp://h]/x");
  CHECK(parse_url(bad).error() == Errc::BadArgument);
}

TEST_CASE("percent_decode handles boundaries", "[client][url]") {
  CHECK(*percent_decode("") == "");
  CHECK(*percent_decode("%41") == "A");
  CHECK(*percent_decode("a%2fb") == "a/b");
  CHECK_FALSE(percent_decode("%"));
  CHECK_FALSE(percent_decode("%4"));
  CHECK_FALSE(percent_decode("x%g1"));
}
