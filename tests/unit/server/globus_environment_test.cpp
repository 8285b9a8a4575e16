// Globus's environment and default credential locations (docs/GLOBUS.md §4), with a fake
// environment and file system.
#include "server/config/globus_environment.hpp"

#include <map>
#include <set>

#include <catch2/catch.hpp>

using namespace gridftp::server;
using gridftp::server::globus::apply_globus_environment;
using gridftp::server::globus::EnvironmentView;
using gridftp::server::globus::parse_port_range;

namespace {

EnvironmentView fake(std::map<std::string, std::string> variables, std::set<std::string> files) {
  return {[variables](std::string_view name) -> std::optional<std::string> {
            const auto found = variables.find(std::string(name));
            if (found == variables.end()) return std::nullopt;
            return found->second;
          },
          [files](const std::filesystem::path& path) { return files.contains(path.string()); }};
}

}  // namespace

TEST_CASE("Port ranges as Globus writes them", "[globus][config]") {
  CHECK(parse_port_range("50000,50100") == std::pair<std::uint16_t, std::uint16_t>{50000, 50100});
  CHECK(parse_port_range("50000 50100") == std::pair<std::uint16_t, std::uint16_t>{50000, 50100});
  CHECK(parse_port_range(" 7, 7 ") == std::pair<std::uint16_t, std::uint16_t>{7, 7});
  CHECK_FALSE(parse_port_range("50100,50000"));
  CHECK_FALSE(parse_port_range("0,10"));
  CHECK_FALSE(parse_port_range("1,70000"));
  CHECK_FALSE(parse_port_range("50000"));
  CHECK_FALSE(parse_port_range("a,b"));
}

TEST_CASE("X509_USER_CERT/KEY name the host credential and switch GSI on when found",
          "[globus][config]") {
  ServerConfig config;
  std::vector<std::string> notes;
  const auto problems = apply_globus_environment(config,
                                                 fake({{"X509_USER_CERT", "/pki/host.pem"},
                                                       {"X509_USER_KEY", "/pki/hostkey.pem"},
                                                       {"X509_CERT_DIR", "/pki/ca"},
                                                       {"GRIDMAP", "/pki/gridmap"}},
                                                      {"/pki/host.pem", "/pki/hostkey.pem"}),
                                                 notes);
  CHECK(problems.empty());
  CHECK(config.gsi.enabled);
  CHECK(config.gsi.host_cert == "/pki/host.pem");
  CHECK(config.gsi.host_key == "/pki/hostkey.pem");
  CHECK(config.gsi.cert_dir == "/pki/ca");
  CHECK(config.gsi.gridmap == "/pki/gridmap");
}

TEST_CASE("Without a host credential GSI stays off, and a config that decided keeps its choice",
          "[globus][config]") {
  std::vector<std::string> notes;
  ServerConfig nothing;
  apply_globus_environment(nothing, fake({}, {}), notes);
  CHECK_FALSE(nothing.gsi.enabled);

  ServerConfig standard;  // Globus's standard location
  apply_globus_environment(
      standard, fake({}, {"/etc/grid-security/hostcert.pem", "/etc/grid-security/hostkey.pem"}),
      notes);
  CHECK(standard.gsi.enabled);

  ServerConfig off;
  off.gsi.enabled_unset = false;
  apply_globus_environment(
      off, fake({}, {"/etc/grid-security/hostcert.pem", "/etc/grid-security/hostkey.pem"}), notes);
  CHECK_FALSE(off.gsi.enabled);

  ServerConfig half;  // X509_USER_CERT alone is not a credential
  apply_globus_environment(half, fake({{"X509_USER_CERT", "/pki/host.pem"}}, {"/pki/host.pem"}),
                           notes);
  CHECK_FALSE(half.gsi.enabled);
  CHECK(half.gsi.host_cert == "/etc/grid-security/hostcert.pem");
}

TEST_CASE("The config's credential and ranges win over the environment", "[globus][config]") {
  ServerConfig config;
  config.gsi.host_cert = "/conf/cert.pem";
  config.gsi.host_key = "/conf/key.pem";
  config.listen.passive_port_min = 40000;
  config.listen.passive_port_max = 40010;
  std::vector<std::string> notes;
  const auto problems = apply_globus_environment(config,
                                                 fake({{"X509_USER_CERT", "/pki/host.pem"},
                                                       {"X509_USER_KEY", "/pki/hostkey.pem"},
                                                       {"GLOBUS_TCP_PORT_RANGE", "50000,50100"},
                                                       {"GLOBUS_TCP_SOURCE_RANGE", "51000,51100"},
                                                       {"GLOBUS_HOSTNAME", "dtn.example.org"}},
                                                      {}),
                                                 notes);
  CHECK(problems.empty());
  CHECK(config.gsi.host_cert == "/conf/cert.pem");
  CHECK(config.listen.passive_port_min == 40000);
  CHECK(config.listen.source_port_min == 51000);
  CHECK(config.listen.source_port_max == 51100);
  CHECK(config.listen.data_interface == "dtn.example.org");
}

TEST_CASE("A malformed GLOBUS_TCP_PORT_RANGE is a problem naming the variable",
          "[globus][config]") {
  ServerConfig config;
  std::vector<std::string> notes;
  const auto problems =
      apply_globus_environment(config, fake({{"GLOBUS_TCP_PORT_RANGE", "50100-50000"}}, {}), notes);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("GLOBUS_TCP_PORT_RANGE") != std::string::npos);
}
