#include "server/striping/frontend_admission.hpp"

#include <catch2/catch.hpp>

using gridftp::server::striping::is_allowed_frontend;

TEST_CASE("A mover serves the frontends it lists and no other", "[striping]") {
  const std::vector<std::string> listed{"/O=Grid/OU=Test/CN=frontend-a", "/O=Grid/CN=frontend-b"};
  CHECK(is_allowed_frontend("/O=Grid/OU=Test/CN=frontend-a", listed, "/O=Grid/CN=mover"));
  CHECK(is_allowed_frontend("/O=Grid/CN=frontend-b", listed, "/O=Grid/CN=mover"));
  CHECK_FALSE(is_allowed_frontend("/O=Grid/OU=Test/CN=frontend-c", listed, "/O=Grid/CN=mover"));
  // Listing frontends replaces the default: the mover's own identity is no longer enough.
  CHECK_FALSE(is_allowed_frontend("/O=Grid/CN=mover", listed, "/O=Grid/CN=mover"));
}

TEST_CASE("With no frontends listed a mover serves its own host identity only", "[striping]") {
  CHECK(is_allowed_frontend("/O=Grid/OU=Test/CN=localhost", {}, "/O=Grid/OU=Test/CN=localhost"));
  CHECK_FALSE(
      is_allowed_frontend("/O=Grid/OU=Test/CN=Test User", {}, "/O=Grid/OU=Test/CN=localhost"));
  // Nobody proved anything, or the mover has no identity to compare with.
  CHECK_FALSE(is_allowed_frontend("", {}, ""));
  CHECK_FALSE(is_allowed_frontend("", {"/O=Grid/CN=a"}, "/O=Grid/CN=a"));
  CHECK_FALSE(is_allowed_frontend("/O=Grid/CN=a", {}, ""));
}
