#include "security/host_name_check.hpp"

#include <catch2/catch.hpp>

using gridftp::security::certificate_names_host;
using gridftp::security::last_common_name;

TEST_CASE("last_common_name takes the last CN of a slash DN", "[gsi]") {
  CHECK(last_common_name("/O=Grid/OU=Test/CN=localhost") == "localhost");
  CHECK(last_common_name("/O=Grid/CN=host/gridftp.example.org") == "host/gridftp.example.org");
  CHECK(last_common_name("/CN=first/CN=second") == "second");
  CHECK(last_common_name("/O=Grid/CN=localhost/emailAddress=a@b") == "localhost");
  CHECK(last_common_name("/O=Grid/OU=Test") == std::nullopt);
  CHECK(last_common_name("") == std::nullopt);
}

TEST_CASE("certificate_names_host accepts <host> and host/<host> only", "[gsi]") {
  // docs/WIRE.md §5.4: the last CN names the host, as "<host>" or "host/<host>".
  CHECK(certificate_names_host("/O=Grid/OU=Test/CN=localhost", "localhost"));
  CHECK(certificate_names_host("/O=Grid/OU=Test/CN=LocalHost", "localhost"));
  CHECK(certificate_names_host("/O=Grid/CN=host/gridftp.example.org", "gridftp.example.org"));
  CHECK_FALSE(certificate_names_host("/O=Grid/OU=Test/CN=localhost", "127.0.0.1"));
  CHECK_FALSE(certificate_names_host("/O=Grid/OU=Test/CN=localhost", "localhost.evil"));
  CHECK_FALSE(certificate_names_host("/O=Grid/OU=Test/CN=Test User", "localhost"));
  CHECK_FALSE(certificate_names_host("/O=Grid/CN=ftp/localhost", "localhost"));
  CHECK_FALSE(certificate_names_host("/O=Grid/CN=*.example.org", "a.example.org"));
  CHECK_FALSE(certificate_names_host("/O=Grid/CN=localhost", ""));
  CHECK_FALSE(certificate_names_host("/O=Grid", "localhost"));
}
