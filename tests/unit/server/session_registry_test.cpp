#include "server/session/session_registry.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using Admission = SessionRegistry::Admission;
constexpr auto kAdmitted = Admission::Admitted;

LimitsConfig limits(unsigned sessions, unsigned per_user, unsigned per_address = 0) {
  LimitsConfig config;
  config.max_sessions = sessions;
  config.max_sessions_per_user = per_user;
  config.max_sessions_per_address = per_address;
  return config;
}

TEST_CASE("SessionRegistry admits up to max_sessions", "[session][limits]") {
  const auto config = limits(2, 10);
  SessionRegistry registry(config);
  CHECK(registry.try_enter("10.0.0.1") == kAdmitted);
  CHECK(registry.try_enter("10.0.0.2") == kAdmitted);
  CHECK(registry.try_enter("10.0.0.3") == Admission::ServerFull);
  CHECK(registry.active_sessions() == 2);
  registry.leave("10.0.0.1");
  CHECK(registry.active_sessions() == 1);
  CHECK(registry.try_enter("10.0.0.3") == kAdmitted);
}

TEST_CASE("SessionRegistry limits sessions per address, each address apart", "[session][limits]") {
  const auto config = limits(100, 100, 2);
  SessionRegistry registry(config);
  CHECK(registry.try_enter("10.0.0.1") == kAdmitted);
  CHECK(registry.try_enter("10.0.0.1") == kAdmitted);
  CHECK(registry.try_enter("10.0.0.1") == Admission::AddressFull);
  CHECK(registry.try_enter("10.0.0.2") == kAdmitted);
  CHECK(registry.active_sessions() == 3);  // the refusal took no place
  registry.leave("10.0.0.1");
  CHECK(registry.try_enter("10.0.0.1") == kAdmitted);
  CHECK(registry.try_enter("10.0.0.1") == Admission::AddressFull);
}

TEST_CASE("SessionRegistry with max_sessions_per_address 0 does not limit addresses",
          "[session][limits]") {
  const auto config = limits(5, 100, 0);
  SessionRegistry registry(config);
  for (int i = 0; i < 5; ++i) CHECK(registry.try_enter("10.0.0.1") == kAdmitted);
  CHECK(registry.try_enter("10.0.0.1") == Admission::ServerFull);
}

TEST_CASE("SessionRegistry with max_sessions 0 admits nobody", "[session][limits]") {
  const auto config = limits(0, 10);
  SessionRegistry registry(config);
  CHECK(registry.try_enter("10.0.0.1") == Admission::ServerFull);
  CHECK(registry.active_sessions() == 0);
}

TEST_CASE("SessionRegistry never counts below zero", "[session][limits]") {
  const auto config = limits(1, 1);
  SessionRegistry registry(config);
  registry.leave("10.0.0.1");
  CHECK(registry.active_sessions() == 0);
  CHECK(registry.try_enter("10.0.0.1") == kAdmitted);
  CHECK(registry.try_enter("10.0.0.2") == Admission::ServerFull);
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
