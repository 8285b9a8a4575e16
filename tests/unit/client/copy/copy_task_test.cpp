#include "client/copy/copy_task.hpp"

#include <catch2/catch.hpp>

using gridftp::client::as_directory;
using gridftp::client::DirectoryPair;
using gridftp::client::parse_url;
using gridftp::client::plan_tree_level;
using gridftp::protocol::listing::ListingEntry;

namespace {
gridftp::client::Url url(const char* text) { return *parse_url(text); }
}  // namespace

TEST_CASE("dest_for_file appends the base name to a directory URL", "[client][plan]") {
  CHECK(dest_for_file(url("ftp://h/a/b.bin"), url("/tmp/out/")).path == "/tmp/out/b.bin");
  CHECK(dest_for_file(url("ftp://h/a/b.bin"), url("/tmp/c.bin")).path == "/tmp/c.bin");
  CHECK(dest_for_file(url("x.bin"), url("ftp://h/in/")).path == "/in/x.bin");
}

TEST_CASE("as_directory adds one trailing slash", "[client][plan]") {
  CHECK(as_directory(url("ftp://h/d")).path == "/d/");
  CHECK(as_directory(url("ftp://h/d/")).path == "/d/");
}

TEST_CASE("display_url spells remote URLs with their origin and local ones as paths",
          "[client][plan]") {
  CHECK(display_url(url("ftp://127.0.0.1:5000/a")) == "ftp://127.0.0.1:5000/a");
  CHECK(display_url(url("file:///tmp/a")) == "/tmp/a");
}

TEST_CASE("plan_tree_level splits files from directories and keeps their facts", "[client][plan]") {
  const DirectoryPair top{url("ftp://h/src/"), url("/tmp/dst/")};
  std::vector<ListingEntry> entries{
      {"a.bin", false, false, 10, 1700000000},
      {"sub", true, false, std::nullopt, std::nullopt},
      {".", true, true, std::nullopt, std::nullopt},
  };
  const auto level = plan_tree_level(top, entries);
  REQUIRE(level.files.size() == 1);
  CHECK(level.files[0].source.path == "/src/a.bin");
  CHECK(level.files[0].source.host == "h");
  CHECK(level.files[0].dest.path == "/tmp/dst/a.bin");
  CHECK(level.files[0].source_facts.size_bytes == 10);
  CHECK(level.files[0].source_facts.modify_seconds == 1700000000);
  REQUIRE(level.directories.size() == 1);
  CHECK(level.directories[0].source.path == "/src/sub/");
  CHECK(level.directories[0].dest.path == "/tmp/dst/sub/");
}

TEST_CASE("plan_tree_level refuses names that would leave the tree", "[client][plan]") {
  const DirectoryPair top{url("ftp://h/src/"), url("/tmp/dst/")};
  std::vector<ListingEntry> entries{
      {"..", true, false, std::nullopt, std::nullopt},
      {"../../etc/x", false, false, 1, std::nullopt},
      {"", false, false, 1, std::nullopt},
  };
  const auto level = plan_tree_level(top, entries);
  CHECK(level.files.empty());
  CHECK(level.directories.empty());
}
