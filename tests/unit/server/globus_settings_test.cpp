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
      words({"-single", "-rp-follow-symlinks", "-chroot-path", "/x"}), config, process);
  REQUIRE(problems.size() == 3);
  CHECK(problems[0].find("single") != std::string::npos);
  CHECK(problems[1].find("rp_follow_symlinks") != std::string::npos);
  CHECK(problems[2].find("chroot_path") != std::string::npos);
}

TEST_CASE("Globus's -r names a frontend's movers and -dn makes a mover",
          "[globus][config][striping]") {
  ServerConfig frontend;
  ProcessOptions process;
  CHECK(
      apply_globus_settings(words({"-r", "dtn1:6001,dtn2:6001,", "-p", "2811"}), frontend, process)
          .empty());
  CHECK(frontend.striping.movers == std::vector<std::string>{"dtn1:6001", "dtn2:6001"});
  CHECK_FALSE(frontend.striping.mover);
  CHECK_FALSE(frontend.striping.hybrid);
  ServerConfig hybrid;
  CHECK(apply_globus_settings(words({"-r", "dtn1:6001", "-hybrid"}), hybrid, process).empty());
  CHECK(hybrid.striping.hybrid);
  ServerConfig mover;
  CHECK(apply_globus_settings(words({"-dn", "-p", "6001"}), mover, process).empty());
  CHECK(mover.striping.mover);
  CHECK(mover.listen.port == 6001);
  CHECK(mover.striping.movers.empty());
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
    const auto support = support_for(spec.key);
    REQUIRE(support);
    CHECK(text.find(support->why) != std::string::npos);
  }
  CHECK(text.find("-restrict-paths, -rp") != std::string::npos);
}

TEST_CASE("Every Globus option has an explicit rule with a reason", "[globus][config]") {
  for (const auto& spec : option_table()) {
    INFO(spec.key);
    const auto support = support_for(spec.key);
    REQUIRE(support);
    CHECK_FALSE(support->why.empty());
  }
  CHECK_FALSE(support_for("no_such_option"));
}

TEST_CASE("Harmless options are accepted with a warning naming them", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  std::vector<std::string> warnings;
  const auto problems = apply_globus_settings(
      words({"-cas", "-ipc-port", "4000", "-stripe-count", "2", "-file-timeout", "30",
             "-offline-msg", "down", "-log-filemode", "0640"}),
      config, process, warnings);
  CHECK(problems.empty());
  REQUIRE(warnings.size() == 6);
  CHECK(warnings[0].starts_with("cas (command line): ignored"));
  CHECK(warnings[1].starts_with("ipc_port"));
  CHECK(warnings[5].starts_with("log_filemode"));
}

TEST_CASE("Globus's -bs sets the block size and -sync-writes durable commit", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  std::vector<std::string> warnings;
  const auto problems =
      apply_globus_settings(words({"-bs", "256K", "-sync-writes"}), config, process, warnings);
  CHECK(problems.empty());
  CHECK(warnings.empty());
  CHECK(config.storage.block_bytes == 256U * 1024U);
  CHECK(config.storage.durable);
  const auto tiny = apply_globus_settings(words({"-bs", "1K"}), config, process, warnings);
  REQUIRE(tiny.size() == 1);
  CHECK(tiny[0].find("4096") != std::string::npos);
}

TEST_CASE("A flag left as gridftpd behaves anyway is accepted quietly", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  std::vector<std::string> warnings;
  const auto problems = apply_globus_settings(
      words({"-no-single", "-no-encrypt-data", "-no-allow-root", "-no-sync-writes", "-no-cas",
             "-dsi", "file", "-no-connections-disabled", "-perms", "0644"}),
      config, process, warnings);
  CHECK(problems.empty());
  CHECK(warnings.empty());
}

TEST_CASE("Refused options say why and what to use instead", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  const auto problems =
      apply_globus_settings(words({"-allow-from", "10.", "-encrypt-data", "-perms", "0600",
                                   "-auth-level", "4", "-process-user", "nobody"}),
                            config, process);
  REQUIRE(problems.size() == 5);
  CHECK(problems[0].find("allow_from (command line): ") == 0);
  CHECK(problems[0].find("firewall") != std::string::npos);
  CHECK(problems[1].find("PROT P") != std::string::npos);
  CHECK(problems[2].find("0644") != std::string::npos);
  CHECK(problems[3].find("no setuid") != std::string::npos);
  CHECK(problems[4].find("grid-mapfile") != std::string::npos);
}

TEST_CASE("Message files become the banner and the login message", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  std::vector<std::string> warnings;
  const TextFileReader files = [](const std::string& path,
                                  std::string& why) -> std::optional<std::string> {
    if (path == "/etc/banner") return "line one\nline two\n";
    why = "cannot read " + path;
    return std::nullopt;
  };
  auto problems =
      apply_globus_settings(words({"-banner-file", "/etc/banner", "-login-msg", "welcome"}), config,
                            process, warnings, files);
  CHECK(problems.empty());
  CHECK(config.server.banner == "line one\nline two\n");
  CHECK(config.server.login_message == "welcome");
  problems = apply_globus_settings(words({"-login-msg-file", "/etc/missing"}), config, process,
                                   warnings, files);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "login_msg_file (command line): cannot read /etc/missing");
  CHECK(config.server.login_message == "welcome");
}

TEST_CASE("log_unique names the one log unless -l did", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  std::vector<std::string> warnings;
  auto problems =
      apply_globus_settings(words({"-L", "/var/log/gridftp/"}), config, process, warnings);
  CHECK(problems.empty());
  CHECK(config.logging.server_log == "/var/log/gridftp/gridftp.log");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("one server log") != std::string::npos);

  ServerConfig other;
  warnings.clear();
  problems = apply_globus_settings(words({"-l", "/var/log/g.log", "-L", "/var/log/gridftp/"}),
                                   other, process, warnings);
  CHECK(problems.empty());
  CHECK(other.logging.server_log == "/var/log/g.log");
  REQUIRE(warnings.size() == 1);
}

TEST_CASE("log_module takes stdio, warns for syslog, refuses others", "[globus][config]") {
  ServerConfig config;
  ProcessOptions process;
  std::vector<std::string> warnings;
  CHECK(apply_globus_settings(words({"-log-module", "stdio:buffer=0"}), config, process, warnings)
            .empty());
  CHECK(warnings.empty());
  CHECK(apply_globus_settings(words({"-log-module", "syslog"}), config, process, warnings).empty());
  CHECK(warnings.size() == 1);
  const auto problems =
      apply_globus_settings(words({"-log-module", "netlogger"}), config, process, warnings);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("stdio and syslog") != std::string::npos);
}
