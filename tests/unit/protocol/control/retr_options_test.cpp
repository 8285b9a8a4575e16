#include "protocol/control/retr_options.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::control::parse_retr_options;
using gridftp::protocol::control::RetrOptions;

TEST_CASE("parse_retr_options reads what globus-url-copy -p sends", "[opts]") {
  const auto options = parse_retr_options("Parallelism=4,4,4;");
  REQUIRE(options);
  CHECK(options->parallelism == 4u);
  CHECK_FALSE(options->stripe_layout);
  CHECK_FALSE(options->block_size);
  CHECK_FALSE(options->marker_seconds);
}

TEST_CASE("parse_retr_options reads several options in one command", "[opts]") {
  const auto options =
      parse_retr_options("StripeLayout=Blocked;BlockSize=1048576;Parallelism=2;markers=5;");
  REQUIRE(options);
  CHECK(options->stripe_layout == std::string("Blocked"));
  CHECK(options->block_size == 1048576u);
  CHECK(options->parallelism == 2u);
  CHECK(options->marker_seconds == 5u);
}

TEST_CASE("parse_retr_options matches keys and layouts case-insensitively", "[opts]") {
  const auto options =
      parse_retr_options("PARALLELISM=3;stripelayout=partitioned;blocksize=7;MARKERS=0;");
  REQUIRE(options);
  CHECK(options->parallelism == 3u);
  CHECK(options->stripe_layout == std::string("Partitioned"));
  CHECK(options->block_size == 7u);
  CHECK(options->marker_seconds == 0u);
}

TEST_CASE("parse_retr_options uses the first Parallelism number", "[opts]") {
  CHECK(parse_retr_options("Parallelism=8;")->parallelism == 8u);
  CHECK(parse_retr_options("Parallelism=8,1;")->parallelism == 8u);
  CHECK(parse_retr_options("Parallelism=8,1,16;")->parallelism == 8u);
}

TEST_CASE("parse_retr_options accepts parallelism 1 to 64", "[opts]") {
  CHECK(parse_retr_options("Parallelism=1;")->parallelism == 1u);
  CHECK(parse_retr_options("Parallelism=64,64,64;")->parallelism == 64u);
}

TEST_CASE("parse_retr_options keeps the last of a repeated key", "[opts]") {
  // Globus 13.24 answers "Parallelism=4,4,4;Parallelism=2;" with 200.
  CHECK(parse_retr_options("Parallelism=4,4,4;Parallelism=2;")->parallelism == 2u);
}

TEST_CASE("parse_retr_options reads the largest block size", "[opts]") {
  CHECK(parse_retr_options("BlockSize=18446744073709551615;")->block_size == 18446744073709551615u);
}

TEST_CASE("parse_retr_options rejects malformed options", "[opts]") {
  const std::string text =
      GENERATE(as<std::string>{},
               "",                   // Globus: 500 OPTS failed.
               "Parallelism=4",      // no ';' (Globus: 500)
               "foo=1;",             // unknown key (Globus: 500)
               "Parallelism=abc;",   // (Globus: 500)
               ";",                  // (Globus: 500)
               "Parallelism=4;;",    // (Globus: 500)
               "Parallelism = 4;",   // (Globus: 500)
               "markers=abc;",       // (Globus: 500)
               "StripeLayout=Foo;",  // (Globus: 500)
               "Parallelism=0;",     // Globus accepts; we need 1..64
               "Parallelism=65;", "Parallelism=-1;", "Parallelism=99999999999999;",
               "Parallelism=4 ;",  // Globus accepts; no spaces here
               "Parallelism=4,x,y;", "Parallelism=4,4,4,4;", "Parallelism=4,;", "Parallelism=;",
               "Parallelism;", "=4;", "BlockSize=0;", "BlockSize=18446744073709551616;",
               "BlockSize=+5;", "markers=4294967296;",
               "Parallelism=4;markers=5",  // the last option lacks ';'
               "Parallelism=4;bogus=1;");
  INFO(text);
  const auto options = parse_retr_options(text);
  REQUIRE_FALSE(options);
  CHECK(options.error() == gridftp::Condition::BadSyntax);
}
