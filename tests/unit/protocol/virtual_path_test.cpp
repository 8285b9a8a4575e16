#include "protocol/control/virtual_path.hpp"

#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::control::base_name;
using gridftp::protocol::control::is_within;
using gridftp::protocol::control::parent_path;
using gridftp::protocol::control::resolve_virtual_path;

TEST_CASE("resolve_virtual_path folds relative and absolute paths", "[control][virtual_path]") {
  auto [cwd, path, expected] = GENERATE(table<std::string, std::string, std::string>({
      {"/", "", "/"},
      {"/a/b", "", "/a/b"},
      {"/", "/", "/"},
      {"/a/b", "/", "/"},
      {"/", "a", "/a"},
      {"/", "a/b/c", "/a/b/c"},
      {"/x", "a", "/x/a"},
      {"/x/y", "a/b", "/x/y/a/b"},
      {"/x/y", "/a/b", "/a/b"},
      {"/x/y", "/a/b/", "/a/b"},
      {"/x", "a/", "/x/a"},
      {"/", ".", "/"},
      {"/x", ".", "/x"},
      {"/x", "./", "/x"},
      {"/x", "./a/./b/.", "/x/a/b"},
      {"/x/y", "..", "/x"},
      {"/x/y", "../..", "/"},
      {"/x/y", "../z", "/x/z"},
      {"/x", "a/../b", "/x/b"},
      {"/x", "a/b/../../c", "/x/c"},
      {"/", "a//b///c", "/a/b/c"},
      {"/", "//a//", "/a"},
      {"/", "////", "/"},
      {"/x", "/a/../..x", "/..x"},
      {"/", "...", "/..."},
      {"/", ".hidden", "/.hidden"},
      {"/", "a b/c d", "/a b/c d"},
      {"/", "a\\..\\b", "/a\\..\\b"},
      {"/a/./b//", "c", "/a/b/c"},
      {"/a/b/..", "c", "/a/c"},
      {"/", "/..x/..", "/"},
  }));
  INFO("cwd " << cwd << " path " << path);
  const auto resolved = resolve_virtual_path(cwd, path);
  REQUIRE(resolved.has_value());
  CHECK(*resolved == expected);
}

TEST_CASE("resolve_virtual_path refuses to climb above the root", "[control][virtual_path]") {
  auto [cwd, path] = GENERATE(table<std::string, std::string>({
      {"/", ".."},
      {"/", "../"},
      {"/", "../a"},
      {"/", "/.."},
      {"/x", "/.."},
      {"/x", "../.."},
      {"/x/y", "../../.."},
      {"/x", "a/../../.."},
      {"/", "a/../.."},
      {"/", "./.."},
      {"/x", "/x/../../x"},
      {"/..", "a"},
      {"/x/../..", "a"},
  }));
  INFO("cwd " << cwd << " path " << path);
  const auto resolved = resolve_virtual_path(cwd, path);
  REQUIRE_FALSE(resolved.has_value());
  CHECK(resolved.error() == Errc::PathEscapesRoot);
  CHECK(resolved.error() == gridftp::Condition::PermissionDenied);
}

TEST_CASE("resolve_virtual_path rejects a NUL byte in the path or the cwd",
          "[control][virtual_path]") {
  using namespace std::string_view_literals;
  const auto in_path = resolve_virtual_path("/", "a\0b"sv);
  REQUIRE_FALSE(in_path.has_value());
  CHECK(in_path.error() == Errc::BadArgument);
  const auto only_nul = resolve_virtual_path("/", "\0"sv);
  REQUIRE_FALSE(only_nul.has_value());
  CHECK(only_nul.error() == Errc::BadArgument);
  const auto in_cwd = resolve_virtual_path("/a\0"sv, "b");
  REQUIRE_FALSE(in_cwd.has_value());
  CHECK(in_cwd.error() == Errc::BadArgument);
  // An absolute path ignores the cwd, but a NUL anywhere is still refused.
  const auto absolute = resolve_virtual_path("/a\0"sv, "/b");
  CHECK_FALSE(absolute.has_value());
}

TEST_CASE("resolve_virtual_path output is a fixed point", "[control][virtual_path]") {
  const std::string path = GENERATE(std::string("a/./b/../c//d/"), std::string("/"),
                                    std::string("x/y/z"), std::string("../q"));
  const auto once = resolve_virtual_path("/m/n", path);
  REQUIRE(once.has_value());
  const auto twice = resolve_virtual_path("/", *once);
  REQUIRE(twice.has_value());
  CHECK(*twice == *once);
  const auto from_other_cwd = resolve_virtual_path("/elsewhere", *once);
  REQUIRE(from_other_cwd.has_value());
  CHECK(*from_other_cwd == *once);
}

TEST_CASE("is_within compares whole path components", "[control][virtual_path]") {
  auto [path, area, within] = GENERATE(table<std::string, std::string, bool>({
      {"/a", "/a", true},
      {"/a/b", "/a", true},
      {"/a/b/c", "/a", true},
      {"/a/b/c", "/a/b", true},
      {"/ab", "/a", false},
      {"/a", "/ab", false},
      {"/a.b", "/a", false},
      {"/a-b/c", "/a", false},
      {"/", "/a", false},
      {"/b", "/a", false},
      {"/b/a", "/a", false},
      {"/", "/", true},
      {"/a", "/", true},
      {"/a/b", "/", true},
      {"/incoming", "/incoming", true},
      {"/incoming/x", "/incoming", true},
      {"/incomingx", "/incoming", false},
      {"/incomin", "/incoming", false},
  }));
  INFO("path " << path << " area " << area);
  CHECK(is_within(path, area) == within);
}

TEST_CASE("base_name gives the last component", "[control][virtual_path]") {
  auto [path, expected] = GENERATE(table<std::string, std::string>({
      {"/", ""},
      {"/a", "a"},
      {"/a/b", "b"},
      {"/a/b c.txt", "b c.txt"},
      {"/a/.hidden", ".hidden"},
      {"name", "name"},
      {"", ""},
  }));
  CHECK(base_name(path) == expected);
}

TEST_CASE("parent_path gives the directory holding the last component", "[control][virtual_path]") {
  auto [path, expected] = GENERATE(table<std::string, std::string>({
      {"/", "/"},
      {"/a", "/"},
      {"/a/b", "/a"},
      {"/a/b/c", "/a/b"},
      {"name", "/"},
      {"", "/"},
  }));
  CHECK(parent_path(path) == expected);
}

TEST_CASE("parent_path and base_name recompose a normalized path", "[control][virtual_path]") {
  const std::string path =
      GENERATE(std::string("/a"), std::string("/a/b"), std::string("/x/y/z.txt"));
  const auto parent = std::string(parent_path(path));
  const auto joined = parent == "/" ? "/" + std::string(base_name(path))
                                    : parent + "/" + std::string(base_name(path));
  CHECK(joined == path);
}

TEST_CASE("resolve_client_path takes a leading ~ as the home directory",
          "[control][virtual_path]") {
  using gridftp::protocol::control::resolve_client_path;
  CHECK(resolve_client_path("/tmp", "/home/u", "~").value() == "/home/u");
  CHECK(resolve_client_path("/tmp", "/home/u", "~/").value() == "/home/u");
  CHECK(resolve_client_path("/tmp", "/home/u", "~/data/../f").value() == "/home/u/f");
  CHECK(resolve_client_path("/tmp", "/home/u", "f").value() == "/tmp/f");
  CHECK(resolve_client_path("/tmp", "/home/u", "/abs").value() == "/abs");
  CHECK(resolve_client_path("/tmp", "/home/u", "~other").value() == "/tmp/~other");
  CHECK_FALSE(resolve_client_path("/tmp", "/", "~/../.."));
}
