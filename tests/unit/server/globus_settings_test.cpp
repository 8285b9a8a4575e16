// Globus options applied with Globus's meaning, or refused by name (docs/GLOBUS.md §5).
#include "server/config/globus_settings.hpp"

#include <catch2/catch.hpp>

using namespace gridftp::server;
using namespace gridftp::server::globus;

namespace {

std::vector<Setting> words(std::vector<std::string> argv) {
  std::string why;
  auto parsed = parse_globus_command_line(argv, why);
  INFO(why);
  REQUIRE(parsed);
  return *parsed;
}

}  // namespace

TEST_CASE("Debian's service command line is taken whole", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  const auto problems =
      apply_globus_settings(words({"-S", "-c", "/etc/gridftp.conf", "-C", "/etc/gridftp.d",
                                   "-pidfile", "/run/globus-gridftp-server.pid"}),
                            config, process);
  CHECK(problems.empty());
  CHECK(process.detach);
  CHECK(process.config_file == "/etc/gridftp.conf");
  CHECK(process.config_dir == "/etc/gridftp.d");
  CHECK(process.pidfile == "/run/globus-gridftp-server.pid");
}

TEST_CASE("Shared options set gridftpd's config", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  const auto problems = apply_globus_settings(words({"-p",
                                                     "2k",
                                                     "-control-interface",
                                                     "0.0.0.0",
                                                     "-port-range",
                                                     "50000,50100",
                                                     "-aa",
                                                     "-threads",
                                                     "4",
                                                     "-connections-max",
                                                     "20",
                                                     "-d",
                                                     "WARN,ERROR",
                                                     "-Z",
                                                     "/var/log/t",
                                                     "-no-fork",
                                                     "-control-idle-timeout",
                                                     "60",
                                                     "-disable-usage-stats",
                                                     "-rp",
                                                     "R/data,RW/data/incoming"}),
                                              config, process);
  CHECK(problems.empty());
  CHECK(config.listen.port == 2048);
  CHECK(config.listen.control_interface == "0.0.0.0");
  CHECK(config.listen.passive_port_min == 50000);
  CHECK(config.listen.passive_port_max == 50100);
  CHECK(config.anonymous.enabled);
  CHECK(config.server.threads == 4);
  CHECK(config.limits.max_sessions == 20);
  CHECK(config.logging.level == "warn");
  CHECK(config.logging.transfer_log == "/var/log/t");
  CHECK_FALSE(config.gsi.process_per_session);
  CHECK(config.timeouts.idle_seconds == 60);
  CHECK(config.server.restrict_paths == "R/data,RW/data/incoming");
}

TEST_CASE("Unsupported options are refused by name with the reason", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  const auto problems = apply_globus_settings(
      words({"-single", "-rp-follow-symlinks", "-remote-nodes", "a:1"}), config, process);
  REQUIRE(problems.size() == 3);
  CHECK(problems[0].find("single") != std::string::npos);
  CHECK(problems[1].find("rp_follow_symlinks") != std::string::npos);
  CHECK(problems[2].find("remote_nodes") != std::string::npos);
  CHECK(problems[2].find("data nodes") != std::string::npos);
}

TEST_CASE("A disable-command-list value becomes upper-case verbs", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  const auto problems =
      apply_globus_settings(words({"-disable-command-list", "dele,MKD,,site"}), config, process);
  CHECK(problems.empty());
  CHECK(config.server.disabled_commands == std::vector<std::string>{"DELE", "MKD", "SITE"});
}

TEST_CASE("Out-of-range numbers name the option", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  const auto problems = apply_globus_settings(words({"-p", "70000"}), config, process);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("port") != std::string::npos);
}

TEST_CASE("Globus log levels map onto gridftpd's", "[globus][config]") {
  CHECK(log_level_from_globus("ALL") == "trace");
  CHECK(log_level_from_globus("255") == "trace");
  CHECK(log_level_from_globus("ERROR") == "error");
  CHECK(log_level_from_globus("1") == "error");
  CHECK(log_level_from_globus("error,warn,info") == "info");
  CHECK(log_level_from_globus("TRANSFER") == "info");
  CHECK(log_level_from_globus("info") == "info");
  CHECK(log_level_from_globus("debug") == "debug");
  CHECK_FALSE(log_level_from_globus("LOUD"));
}

TEST_CASE("The help list names every Globus option once", "[globus][config]") {
  const auto text = describe_globus_support();
  for (const auto& spec : option_table()) {
    INFO(spec.key);
    CHECK(text.find(support_for(spec.key).why) != std::string::npos);
  }
  CHECK(text.find("-restrict-paths, -rp") != std::string::npos);
}
