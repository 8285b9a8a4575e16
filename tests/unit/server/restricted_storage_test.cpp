// PosixStorage under Globus-style path restrictions (docs/GLOBUS.md §3): real absolute paths, the
// deepest tree decides, parents list only the way down, links are judged where they lead.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "server/storage/posix_storage.hpp"

namespace fs = std::filesystem;
using gridftp::protocol::control::parse_restrict_paths;
using gridftp::protocol::control::PathRules;
using gridftp::server::storage::PosixStorage;
using gridftp::server::storage::UploadMode;

namespace {

struct RestrictedTree {
  RestrictedTree() {
    char pattern[] = "/tmp/gridftpd-rp-test-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    base = fs::canonical(pattern);
    for (const auto* dir : {"data/pub/incoming", "data/pub/secret", "data/other", "elsewhere"})
      fs::create_directories(base / dir);
    for (const auto* file :
         {"data/pub/a.txt", "data/pub/secret/s.txt", "data/other/o.txt", "elsewhere/e.txt"})
      std::ofstream(base / file) << "x";
    fs::create_symlink(base / "elsewhere" / "e.txt", base / "data" / "pub" / "to_elsewhere");
  }
  ~RestrictedTree() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  // The session sees the real "/" with writable "/" (Globus's view); the rules decide.
  PosixStorage storage() const {
    const auto b = base.string();
    std::string why;
    auto rules = parse_restrict_paths(
        "R" + b + "/data/pub,RW" + b + "/data/pub/incoming,N" + b + "/data/pub/secret",
        "/home/nobody", "nobody", why);
    INFO(why);
    REQUIRE(rules);
    auto opened = PosixStorage::open("/", {"/"}, PathRules(std::move(*rules)));
    REQUIRE(opened);
    return std::move(*opened);
  }
  std::string path(const std::string& rel) const { return (base / rel).string(); }
  fs::path base;
};

std::vector<std::string> names(const PosixStorage& storage, const std::string& dir) {
  auto listed = storage.list_directory(dir);
  REQUIRE(listed);
  std::vector<std::string> out;
  for (const auto& facts : *listed) out.push_back(facts.name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("Restrictions allow reads in R trees and refuse everything else",
          "[storage][restrict_paths]") {
  RestrictedTree tree;
  const auto storage = tree.storage();
  CHECK(storage.open_for_read(tree.path("data/pub/a.txt")));
  CHECK_FALSE(storage.open_for_read(tree.path("data/other/o.txt")));
  CHECK_FALSE(storage.open_for_read(tree.path("data/pub/secret/s.txt")));  // N beats R
  CHECK_FALSE(storage.stat(tree.path("data/other/o.txt")));
  CHECK_FALSE(storage.check_directory(tree.path("data/other")));
  CHECK(storage.check_directory(tree.path("data/pub")));
}

TEST_CASE("Restrictions judge a link by where it leads", "[storage][restrict_paths]") {
  RestrictedTree tree;
  const auto storage = tree.storage();
  CHECK_FALSE(storage.open_for_read(tree.path("data/pub/to_elsewhere")));
}

TEST_CASE("Restrictions allow writes only in W trees", "[storage][restrict_paths]") {
  RestrictedTree tree;
  const auto storage = tree.storage();
  CHECK(storage.begin_upload(tree.path("data/pub/incoming/new.bin"), UploadMode::Replace, 0));
  CHECK_FALSE(storage.begin_upload(tree.path("data/pub/new.bin"), UploadMode::Replace, 0));
  CHECK_FALSE(storage.make_directory(tree.path("data/other/d")));
  CHECK(storage.make_directory(tree.path("data/pub/incoming/d")));
  CHECK_FALSE(storage.remove_file(tree.path("data/pub/a.txt")));
  CHECK_FALSE(storage.rename(tree.path("data/pub/a.txt"), tree.path("data/pub/incoming/a.txt")));
}

TEST_CASE("A directory above the allowed trees lists only the way down",
          "[storage][restrict_paths]") {
  RestrictedTree tree;
  const auto storage = tree.storage();
  CHECK(names(storage, tree.path("data")) == std::vector<std::string>{"pub"});
  CHECK(names(storage, "/").size() == 1);  // only the first component of the way down
  CHECK(names(storage, tree.path("data/pub")) ==
        std::vector<std::string>{"a.txt", "incoming", "secret", "to_elsewhere"});
  CHECK_FALSE(storage.list_directory(tree.path("data/pub/secret")));
}
