// What makes a start Globus-style (docs/GLOBUS.md §7): an option beyond -help/-version/-c/-C on
// the command line, or a variable a Globus site sets in the environment.
#include "server/config/globus_start.hpp"

#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace gridftp::server::globus;

namespace {

EnvironmentView environment(std::map<std::string, std::string> variables) {
  return {[variables](std::string_view name) -> std::optional<std::string> {
            const auto found = variables.find(std::string(name));
            if (found == variables.end()) return std::nullopt;
            return found->second;
          },
          [](const std::filesystem::path&) { return false; }};
}

}  // namespace

TEST_CASE("Globus's environment variables make a start Globus-style", "[globus][config]") {
  CHECK_FALSE(environment_names_globus(environment({})));
  CHECK_FALSE(environment_names_globus(environment({{"HOME", "/root"}, {"X509_USER_CERT", ""}})));
  CHECK_FALSE(environment_names_globus(environment({{"X509_USER_PROXY", "/tmp/x509up_u0"}})));
  for (const char* name : {"X509_USER_CERT", "X509_USER_KEY", "X509_CERT_DIR", "GRIDMAP",
                           "GLOBUS_TCP_PORT_RANGE", "GLOBUS_TCP_SOURCE_RANGE", "GLOBUS_HOSTNAME"}) {
    INFO(name);
    CHECK(environment_names_globus(environment({{name, "x"}})));
  }
}

TEST_CASE("Only options that configure the server make a command line Globus-style",
          "[globus][config]") {
  const auto setting = [](const char* key) { return Setting{key, "1", "command line"}; };
  CHECK_FALSE(command_line_names_globus(std::vector<Setting>{}));
  CHECK_FALSE(command_line_names_globus(std::vector<Setting>{
      setting("help"), setting("version"), setting("configfile"), setting("config_dir")}));
  CHECK(command_line_names_globus(std::vector<Setting>{setting("port")}));
  CHECK(command_line_names_globus(std::vector<Setting>{setting("version"), setting("detach")}));
}

TEST_CASE("Globus's defaults: every interface, no anonymous, no FTPS, GSI by the credential",
          "[globus][config]") {
  const auto config = globus_site_defaults();
  CHECK(config.listen.control_interface == "::");
  CHECK(config.listen.port == 2811);
  CHECK_FALSE(config.anonymous.enabled);
  CHECK_FALSE(config.tls.enabled);
  CHECK(config.gsi.enabled_unset);
  CHECK(config.gsi.process_per_session);
  CHECK(config.logging.level == "error");  // Globus's -d default
  CHECK(config.logging.transfer_log_format == "netlogger");
}
