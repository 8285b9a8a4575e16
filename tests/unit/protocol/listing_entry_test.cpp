#include "protocol/listing/listing_entry.hpp"

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::listing::parse_mlsd_line;
using gridftp::protocol::listing::split_listing_lines;

TEST_CASE("parse_mlsd_line reads a Globus file line", "[client][listing]") {
  // Byte-exact from globus-gridftp-server 13.24, docs/WIRE.md §1.4.
  const auto entry = parse_mlsd_line(
      "Type=file;Modify=20261122013752;Size=2;Perm=awr;UNIX.mode=0666;UNIX.owner=gftest;"
      "UNIX.uid=1001;UNIX.group=gftest;UNIX.gid=1001;Unique=fe00-98c00b; a.txt");
  REQUIRE(entry);
  CHECK(entry->name == "a.txt");
  CHECK_FALSE(entry->is_directory);
  CHECK(entry->size_bytes == 2u);
  CHECK(entry->display_name() == "a.txt");
}

TEST_CASE("parse_mlsd_line marks directories and cdir/pdir", "[client][listing]") {
  const auto dir = parse_mlsd_line("type=DIR;size=4096; sub dir");
  REQUIRE(dir);
  CHECK(dir->is_directory);
  CHECK_FALSE(dir->is_self_or_parent);
  CHECK(dir->display_name() == "sub dir/");
  const auto self = parse_mlsd_line("Type=cdir;X.count=3; .");
  REQUIRE(self);
  CHECK(self->is_self_or_parent);
}

TEST_CASE("parse_mlsd_line rejects lines without facts or name", "[client][listing]") {
  const std::string_view bad =
      GENERATE(as<std::string_view>{}, "", "a.txt", "Type=file;a.txt", "Type=file; ", "Type; x");
  CHECK(parse_mlsd_line(bad).error() == Errc::BadReply);
}

TEST_CASE("split_listing_lines handles CRLF, LF and a missing last newline", "[client][listing]") {
  const auto lines = split_listing_lines("a\r\nb\n\r\nc");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "a");
  CHECK(lines[1] == "b");
  CHECK(lines[2] == "c");
  CHECK(split_listing_lines("").empty());
  // What Globus sends for MLSD in TYPE A.
  CHECK(split_listing_lines("Type=file; one\r\r\n")[0] == "Type=file; one");
}

TEST_CASE("parse_time_val reads RFC 3659 times as UTC Unix seconds", "[client][listing]") {
  using gridftp::protocol::listing::parse_time_val;
  CHECK(parse_time_val("19700101000000") == 0);
  CHECK(parse_time_val("20261122013817") == 1795311497);
  CHECK(parse_time_val("20000229235959.123") == 951868799);
  CHECK_FALSE(parse_time_val("2026112201381"));
  CHECK_FALSE(parse_time_val("20261322013817"));
  CHECK_FALSE(parse_time_val("20261122013817x"));
  CHECK_FALSE(parse_time_val("2026112201381a"));
}

TEST_CASE("parse_mlsd_line keeps the Modify fact", "[client][listing]") {
  auto entry =
      gridftp::protocol::listing::parse_mlsd_line("Type=file;Modify=19700101000100;Size=2; a.txt");
  REQUIRE(entry);
  CHECK(entry->modify_seconds == 60);
  CHECK(entry->size_bytes == 2);
}
