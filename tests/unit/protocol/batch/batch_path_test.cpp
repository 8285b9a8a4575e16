#include "protocol/batch/batch_path.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

namespace batch = gridftp::protocol::batch;

TEST_CASE("batch paths stay below the batch directory", "[batch]") {
  for (const char* good : {"a", "a/b", "a.txt", "..a", "a/.b/c", "with space/x"}) {
    INFO(good);
    CHECK(batch::is_valid_batch_path(good));
  }
  const std::vector<std::string> bad_paths{"",
                                           "/a",
                                           "a/",
                                           "a//b",
                                           ".",
                                           "..",
                                           "a/..",
                                           "../a",
                                           "a/./b",
                                           std::string("a\0", 2),
                                           std::string(4097, 'x')};
  for (const auto& bad : bad_paths) {
    INFO(bad);
    CHECK_FALSE(batch::is_valid_batch_path(bad));
  }
  CHECK(batch::is_valid_batch_path(std::string(4096, 'x')));
}

TEST_CASE("batch order is a depth-first walk with names sorted by bytes", "[batch]") {
  // The order in which a walk that sorts each directory's names visits this tree.
  const std::vector<std::string> walk{"a", "a/b", "a/b/z", "a/c", "a.txt", "a0", "b"};
  for (std::size_t i = 0; i < walk.size(); ++i) {
    for (std::size_t j = 0; j < walk.size(); ++j) {
      INFO(walk[i] << " vs " << walk[j]);
      const int expected = i < j ? -1 : (i == j ? 0 : 1);
      CHECK(batch::compare_batch_paths(walk[i], walk[j]) == expected);
    }
  }
  // Plain string order would put "a.txt" before "a/b" ('.' < '/'): the walk does not.
  CHECK(std::string("a.txt") < std::string("a/b"));
  CHECK(batch::compare_batch_paths("a.txt", "a/b") > 0);
}

TEST_CASE("batch restart points parse, print and place files", "[batch]") {
  auto point = batch::parse_restart_point("4096 dir/file name");
  REQUIRE(point);
  CHECK(point->offset == 4096);
  CHECK(point->path == "dir/file name");
  CHECK(batch::format_restart_point(*point) == "4096 dir/file name");

  for (const char* bad : {"", "12", "x a", "12 /abs", "12 ../a", " 12 a", "-1 a", "1x a"}) {
    INFO(bad);
    CHECK(batch::parse_restart_point(bad).error() == gridftp::protocol::Errc::BadArgument);
  }

  // Files before the point are held; the point's file from its offset; later files whole.
  const batch::RestartPoint at{100, "m/n"};
  CHECK(batch::resume_offset(at, "a", 5000) == std::nullopt);
  CHECK(batch::resume_offset(at, "m", 5000) == std::nullopt);
  CHECK(batch::resume_offset(at, "m/n", 5000) == 100);
  CHECK(batch::resume_offset(at, "m/n", 100) == std::nullopt);  // held whole
  CHECK(batch::resume_offset(at, "m/o", 5000) == 0);
  CHECK(batch::resume_offset(at, "m.z", 5000) == 0);
  // A file held whole, even an empty one, is not sent again.
  CHECK(batch::resume_offset(batch::RestartPoint{0, "e"}, "e", 0) == std::nullopt);
}
