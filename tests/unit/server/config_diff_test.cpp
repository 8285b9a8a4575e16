#include "server/config/config_diff.hpp"

#include <algorithm>

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

TEST_CASE("changed_keys names nothing for equal configs", "[config][reload]") {
  const ServerConfig config;
  CHECK(changed_keys(config, config).empty());
}

TEST_CASE("changed_keys names each changed setting by section and key", "[config][reload]") {
  ServerConfig before;
  ServerConfig after = before;
  after.limits.max_sessions = before.limits.max_sessions + 1;
  after.logging.level = "debug";
  after.anonymous.writable = {"incoming", "uploads"};
  auto changed = changed_keys(before, after);
  std::sort(changed.begin(), changed.end());
  CHECK(changed ==
        std::vector<std::string>{"anonymous.writable", "limits.max_sessions", "logging.level"});
}

}  // namespace
}  // namespace gridftp::server
