#include "server/session/session_registry.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

LimitsConfig limits(unsigned sessions, unsigned per_user) {
  LimitsConfig config;
  config.max_sessions = sessions;
  config.max_sessions_per_user = per_user;
  return config;
}

TEST_CASE("SessionRegistry admits up to max_sessions", "[session][limits]") {
  const auto config = limits(2, 10);
  SessionRegistry registry(config);
  CHECK(registry.try_enter());
  CHECK(registry.try_enter());
  CHECK_FALSE(registry.try_enter());
  CHECK(registry.active_sessions() == 2);
  registry.leave();
  CHECK(registry.active_sessions() == 1);
  CHECK(registry.try_enter());
}

TEST_CASE("SessionRegistry with max_sessions 0 admits nobody", "[session][limits]") {
  const auto config = limits(0, 10);
  SessionRegistry registry(config);
  CHECK_FALSE(registry.try_enter());
  CHECK(registry.active_sessions() == 0);
}

TEST_CASE("SessionRegistry never counts below zero", "[session][limits]") {
  const auto config = limits(1, 1);
  SessionRegistry registry(config);
  registry.leave();
  CHECK(registry.active_sessions() == 0);
  CHECK(registry.try_enter());
  CHECK_FALSE(registry.try_enter());
}

TEST_CASE("SessionRegistry limits logins per user, each user apart", "[session][limits]") {
  const auto config = limits(100, 2);
  SessionRegistry registry(config);
  CHECK(registry.try_login("alice"));
  CHECK(registry.try_login("alice"));
  CHECK_FALSE(registry.try_login("alice"));
  CHECK(registry.try_login("bob"));
  registry.logout("alice");
  CHECK(registry.try_login("alice"));
}

TEST_CASE("SessionRegistry ignores a logout of a user it does not count", "[session][limits]") {
  const auto config = limits(100, 1);
  SessionRegistry registry(config);
  registry.logout("nobody");
  CHECK(registry.try_login("nobody"));
  CHECK_FALSE(registry.try_login("nobody"));
  registry.logout("nobody");
  registry.logout("nobody");  // a second logout does not free a slot that was never taken
  CHECK(registry.try_login("nobody"));
  CHECK_FALSE(registry.try_login("nobody"));
}

}  // namespace
}  // namespace gridftp::server
