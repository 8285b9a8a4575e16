#include "client/auth/server_identity.hpp"

#include <catch2/catch.hpp>

using gridftp::client::ExpectedServer;
using gridftp::client::server_identity_matches;
using gridftp::client::server_identity_mismatch;

TEST_CASE("server_identity_matches checks the URL's host when no subject is given",
          "[client][gsi]") {
  CHECK(server_identity_matches("/O=Grid/CN=localhost", ExpectedServer{"localhost", ""}));
  CHECK(server_identity_matches("/O=Grid/CN=host/dtn1.x.org", ExpectedServer{"dtn1.x.org", ""}));
  CHECK_FALSE(server_identity_matches("/O=Grid/CN=localhost", ExpectedServer{"127.0.0.1", ""}));
}

TEST_CASE("server_identity_matches takes a given subject instead of the host", "[client][gsi]") {
  // A DTN reached by address or DNS alias: the subject is checked, the host is not.
  const ExpectedServer by_subject{"127.0.0.1", "/O=Grid/CN=localhost"};
  CHECK(server_identity_matches("/O=Grid/CN=localhost", by_subject));
  CHECK(server_identity_matches("/o=grid/cn=LOCALHOST", by_subject));
  CHECK_FALSE(server_identity_matches("/O=Grid/CN=other", by_subject));
  CHECK_FALSE(server_identity_matches("/O=Grid/CN=localhost/CN=x", by_subject));
  // A subject that names the URL's host still has to be the certificate's whole DN.
  CHECK_FALSE(server_identity_matches("/O=Grid/CN=localhost",
                                      ExpectedServer{"localhost", "/O=Other/CN=localhost"}));
}

TEST_CASE("server_identity_mismatch says what was expected", "[client][gsi]") {
  CHECK(server_identity_mismatch("/O=Grid/CN=a", ExpectedServer{"h", "/O=Grid/CN=b"}) ==
        "certificate /O=Grid/CN=a is not the expected subject /O=Grid/CN=b");
  CHECK(server_identity_mismatch("/O=Grid/CN=a", ExpectedServer{"h", ""})
            .starts_with("certificate /O=Grid/CN=a is not for host h"));
}
