#include "server/startup.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "server/auth/authenticator.hpp"
#include "server/config/server_config.hpp"

using gridftp::server::AnonymousConfig;
using gridftp::server::apply_restrict_paths;
using gridftp::server::ServerConfig;
using gridftp::server::validate;

namespace {

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& problem : problems) out += problem + "\n";
  return out;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& problem : problems) {
    if (problem.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("apply_restrict_paths makes the first readable path the anonymous root",
          "[startup][restrict_paths]") {
  auto [spec, root] = GENERATE(table<std::string, std::string>({
      {"R/srv/pub", "/srv/pub"},
      {"RW/srv/pub", "/srv/pub"},
      {"W/srv/pub", "/srv/pub"},
      {"N/secret,R/srv/pub", "/srv/pub"},
      {"N/secret,R/srv/pub,R/srv/other", "/srv/pub"},
      {",,R/srv/pub,,", "/srv/pub"},
  }));
  INFO(spec);
  AnonymousConfig anonymous;
  const auto problems = apply_restrict_paths(spec, anonymous);
  INFO(joined(problems));
  CHECK(problems.empty());
  CHECK(anonymous.root == root);
}

TEST_CASE("apply_restrict_paths turns RW and W paths inside the root into relative writable areas",
          "[startup][restrict_paths]") {
  AnonymousConfig anonymous;
  const auto problems =
      apply_restrict_paths("R/srv/pub,RW/srv/pub/incoming,W/srv/pub/a/b", anonymous);
  INFO(joined(problems));
  CHECK(problems.empty());
  CHECK(anonymous.root == "/srv/pub");
  CHECK(anonymous.writable == std::vector<std::string>{"incoming", "a/b"});
}

TEST_CASE("apply_restrict_paths replaces writable areas from the config file",
          "[startup][restrict_paths]") {
  AnonymousConfig anonymous;
  anonymous.root = "/old";
  anonymous.writable = {"old_incoming"};
  const auto problems = apply_restrict_paths("R/srv/pub", anonymous);
  CHECK(problems.empty());
  CHECK(anonymous.root == "/srv/pub");
  CHECK(anonymous.writable.empty());
}

TEST_CASE("apply_restrict_paths: read-only paths give no writable areas",
          "[startup][restrict_paths]") {
  AnonymousConfig anonymous;
  const auto problems = apply_restrict_paths("R/srv/pub,R/srv/pub/incoming,N/srv/pub/x", anonymous);
  CHECK(problems.empty());
  CHECK(anonymous.writable.empty());
}

TEST_CASE("apply_restrict_paths refuses writable paths outside the root",
          "[startup][restrict_paths]") {
  const std::string spec =
      GENERATE(std::string("R/srv/pub,RW/srv/other"), std::string("R/srv/pub,RW/srv"),
               std::string("R/srv/pub,RW/srv/pub/../etc"), std::string("R/srv/pub,RW/srv/public"),
               std::string("R/srv/pub,RW/"));
  INFO(spec);
  AnonymousConfig anonymous;
  const auto problems = apply_restrict_paths(spec, anonymous);
  CHECK(mentions(problems, "outside"));
  CHECK(anonymous.writable.empty());
}

TEST_CASE("apply_restrict_paths needs a readable path", "[startup][restrict_paths]") {
  const std::string spec =
      GENERATE(std::string(""), std::string(","), std::string("N/secret"), std::string("N/a,N/b"));
  INFO("spec '" << spec << "'");
  AnonymousConfig anonymous;
  anonymous.root = "/unchanged";
  anonymous.writable = {"kept"};
  const auto problems = apply_restrict_paths(spec, anonymous);
  CHECK(mentions(problems, "no readable path"));
  CHECK(anonymous.root == "/unchanged");
  CHECK(anonymous.writable == std::vector<std::string>{"kept"});
}

TEST_CASE("apply_restrict_paths refuses an entry without an absolute path",
          "[startup][restrict_paths]") {
  AnonymousConfig anonymous;
  const auto problems = apply_restrict_paths("R/srv/pub,Rincoming", anonymous);
  CHECK(mentions(problems, "Rincoming"));
  CHECK(anonymous.root == "/srv/pub");
}

TEST_CASE("apply_restrict_paths refuses an entry whose prefix is not R, W, RW or N",
          "[startup][restrict_paths]") {
  // "srv/pub" is a relative path, not rights "srv" on "/pub"; "X" and "read" are not rights.
  const std::string spec =
      GENERATE(std::string("srv/pub"), std::string("X/srv/pub"), std::string("read/srv/pub"),
               std::string("R/srv/pub,incoming/x"));
  INFO(spec);
  AnonymousConfig anonymous;
  const auto problems = apply_restrict_paths(spec, anonymous);
  CHECK_FALSE(problems.empty());
}

TEST_CASE(
    "apply_restrict_paths: a writable directory whose name starts with two dots is inside the root",
    "[startup][restrict_paths]") {
  AnonymousConfig anonymous;
  const auto problems = apply_restrict_paths("R/srv/pub,RW/srv/pub/..incoming", anonymous);
  INFO(joined(problems));
  CHECK(problems.empty());
  CHECK(anonymous.writable == std::vector<std::string>{"..incoming"});
}

TEST_CASE("apply_restrict_paths output passes validate()", "[startup][restrict_paths]") {
  const std::string spec =
      GENERATE(std::string("R/srv/pub"), std::string("R/srv/pub,RW/srv/pub/incoming"),
               std::string("RW/srv/pub"), std::string("R/srv/pub,RW/srv/pub"),
               std::string("R/srv/pub/,RW/srv/pub/incoming/"));
  INFO(spec);
  ServerConfig config;
  config.anonymous.enabled = true;
  const auto problems = apply_restrict_paths(spec, config.anonymous);
  REQUIRE(problems.empty());
  const auto invalid = validate(config);
  INFO("writable: " << joined(config.anonymous.writable) << "validate: " << joined(invalid));
  CHECK(invalid.empty());
}

TEST_CASE("apply_restrict_paths: RW on the root itself makes the whole root writable",
          "[startup][restrict_paths]") {
  AnonymousConfig anonymous;
  const auto problems = apply_restrict_paths("RW/srv/pub", anonymous);
  REQUIRE(problems.empty());
  anonymous.enabled = true;
  CHECK(gridftp::server::auth::writable_areas_from(anonymous.writable, false) ==
        std::vector<std::string>{"/"});
}

TEST_CASE("apply_restrict_paths: writable areas resolve to virtual paths under the root",
          "[startup][restrict_paths]") {
  AnonymousConfig anonymous;
  const auto problems =
      apply_restrict_paths("R/srv/pub/,RW/srv/pub/incoming/,RW/srv/pub/a/b", anonymous);
  REQUIRE(problems.empty());
  CHECK(gridftp::server::auth::writable_areas_from(anonymous.writable, false) ==
        std::vector<std::string>{"/incoming", "/a/b"});
}
