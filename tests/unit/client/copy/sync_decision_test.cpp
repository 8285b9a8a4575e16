#include "client/copy/sync_decision.hpp"

#include <catch2/catch.hpp>

using gridftp::client::decide_sync;
using gridftp::client::FileFacts;
using gridftp::client::SyncVerdict;

namespace {
const FileFacts kSource{100, 1000};
}  // namespace

TEST_CASE("decide_sync copies a missing destination at every level", "[client][sync]") {
  const auto level = static_cast<unsigned>(GENERATE(0, 1, 2, 3));
  CHECK(decide_sync(level, kSource, std::nullopt) == SyncVerdict::Copy);
}

TEST_CASE("decide_sync level 0 skips any existing destination", "[client][sync]") {
  CHECK(decide_sync(0, kSource, FileFacts{5, 1}) == SyncVerdict::Skip);
  CHECK(decide_sync(0, kSource, FileFacts{}) == SyncVerdict::Skip);
}

TEST_CASE("decide_sync level 1 compares sizes only", "[client][sync]") {
  CHECK(decide_sync(1, kSource, FileFacts{100, 1}) == SyncVerdict::Skip);
  CHECK(decide_sync(1, kSource, FileFacts{101, 5000}) == SyncVerdict::Copy);
  CHECK(decide_sync(1, kSource, FileFacts{std::nullopt, 5000}) == SyncVerdict::Copy);
}

TEST_CASE("decide_sync level 2 copies over an older or different-size destination",
          "[client][sync]") {
  CHECK(decide_sync(2, kSource, FileFacts{100, 1000}) == SyncVerdict::Skip);
  CHECK(decide_sync(2, kSource, FileFacts{100, 1001}) == SyncVerdict::Skip);
  CHECK(decide_sync(2, kSource, FileFacts{100, 999}) == SyncVerdict::Copy);
  CHECK(decide_sync(2, kSource, FileFacts{99, 5000}) == SyncVerdict::Copy);
  CHECK(decide_sync(2, kSource, FileFacts{100, std::nullopt}) == SyncVerdict::Copy);
  CHECK(decide_sync(2, FileFacts{100, std::nullopt}, FileFacts{100, 5}) == SyncVerdict::Copy);
}

TEST_CASE("decide_sync level 3 asks for checksums when the sizes match", "[client][sync]") {
  CHECK(decide_sync(3, kSource, FileFacts{100, 1}) == SyncVerdict::CompareChecksums);
  CHECK(decide_sync(3, kSource, FileFacts{7, 1}) == SyncVerdict::Copy);
  CHECK(decide_sync(4, kSource, FileFacts{100, 1}) == SyncVerdict::CompareChecksums);
}
