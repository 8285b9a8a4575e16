#include "protocol/core/long_options.hpp"

#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::normalize_long_options;

namespace {

const std::vector<std::string_view> kNames{"port", "vb", "restrict-paths", "aa", "log-transfer"};

std::vector<std::string> normalize(const std::vector<std::string_view>& arguments) {
  return normalize_long_options(arguments, kNames);
}

}  // namespace

TEST_CASE("normalize_long_options doubles the dash of known single-dash names",
          "[cli][long_options]") {
  CHECK(normalize({"-port", "2811"}) == std::vector<std::string>{"--port", "2811"});
  CHECK(normalize({"-vb"}) == std::vector<std::string>{"--vb"});
  CHECK(normalize({"-aa", "-restrict-paths", "R/x"}) ==
        std::vector<std::string>{"--aa", "--restrict-paths", "R/x"});
}

TEST_CASE("normalize_long_options rewrites -name=value keeping the value", "[cli][long_options]") {
  CHECK(normalize({"-port=2811"}) == std::vector<std::string>{"--port=2811"});
  CHECK(normalize({"-log-transfer=/tmp/a=b"}) ==
        std::vector<std::string>{"--log-transfer=/tmp/a=b"});
  CHECK(normalize({"-port="}) == std::vector<std::string>{"--port="});
}

TEST_CASE("normalize_long_options leaves unknown, single-letter and double-dash words alone",
          "[cli][long_options]") {
  const std::string_view word =
      GENERATE(std::string_view("-p"), std::string_view("-d"), std::string_view("-portx"),
               std::string_view("-por"), std::string_view("--port"), std::string_view("--vb"),
               std::string_view("port"), std::string_view("-"), std::string_view("--"),
               std::string_view(""), std::string_view("-=port"), std::string_view("-unknown=1"),
               std::string_view("-Port"), std::string_view("---port"));
  INFO("word " << word);
  CHECK(normalize({word}) == std::vector<std::string>{std::string(word)});
}

TEST_CASE("normalize_long_options leaves everything after -- unchanged", "[cli][long_options]") {
  CHECK(normalize({"-vb", "--", "-port", "-vb"}) ==
        std::vector<std::string>{"--vb", "--", "-port", "-vb"});
}

TEST_CASE("normalize_long_options keeps argument order and count", "[cli][long_options]") {
  const std::vector<std::string_view> arguments{"-p", "1", "-aa", "x", "-port=2", "--threads", "3"};
  const auto out = normalize(arguments);
  REQUIRE(out.size() == arguments.size());
  CHECK(out == std::vector<std::string>{"-p", "1", "--aa", "x", "--port=2", "--threads", "3"});
}

TEST_CASE("normalize_long_options of nothing is nothing", "[cli][long_options]") {
  CHECK(normalize({}).empty());
  const std::vector<std::string_view> none;
  CHECK(normalize_long_options(std::vector<std::string_view>{"-port"}, none) ==
        std::vector<std::string>{"-port"});
}
