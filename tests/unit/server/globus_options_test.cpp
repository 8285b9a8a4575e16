#include "server/config/globus_options.hpp"

#include <catch2/catch.hpp>

using namespace gridftp::server::globus;

namespace {

std::vector<Setting> command_line(std::vector<std::string> words) {
  std::string why;
  auto settings = parse_globus_command_line(words, why);
  INFO(why);
  REQUIRE(settings);
  return *settings;
}

std::string refusal_of_command_line(std::vector<std::string> words) {
  std::string why;
  auto settings = parse_globus_command_line(words, why);
  REQUIRE_FALSE(settings);
  return why;
}

}  // namespace

TEST_CASE("Globus options are found by config key and by either spelling", "[config]") {
  REQUIRE(option_by_key("restrict_paths") != nullptr);
  CHECK(option_by_flag("rp") == option_by_key("restrict_paths"));
  CHECK(option_by_flag("restrict-paths") == option_by_key("restrict_paths"));
  CHECK(option_by_flag("logfile") == option_by_key("log_single"));
  CHECK(option_by_flag("Z") == option_by_key("log_transfer"));
  CHECK(option_by_flag("aa") == option_by_key("allow_anonymous"));
  CHECK(option_by_flag("c") == option_by_key("configfile"));
  CHECK(option_by_flag("") == nullptr);
  CHECK(option_by_key("restrict-paths") == nullptr);  // keys are snake_case only
  // Every key and spelling names one option.
  for (const auto& spec : option_table()) {
    CHECK(option_by_key(spec.key) == &spec);
    if (!spec.long_flag.empty()) CHECK(option_by_flag(spec.long_flag) == &spec);
    if (!spec.short_flag.empty()) CHECK(option_by_flag(spec.short_flag) == &spec);
  }
}

TEST_CASE("Globus numbers take b, k, M and G suffixes in powers of 1024", "[config]") {
  CHECK(parse_globus_number("2811") == 2811U);
  CHECK(parse_globus_number("10k") == 10240U);
  CHECK(parse_globus_number("2M") == 2U << 20);
  CHECK(parse_globus_number("1G") == 1U << 30);
  CHECK(parse_globus_number("7b") == 7U);
  for (const auto* bad : {"", "k", "-1", "10kb", "1.5", "12x", "99999999999999999999"}) {
    INFO(bad);
    CHECK_FALSE(parse_globus_number(bad));
  }
}

TEST_CASE("A Globus command line: one or two dashes, values, and negated flags", "[config]") {
  const auto settings = command_line({"-p", "2811", "--restrict-paths", "RW/data", "-aa",
                                      "-no-fork", "-nf", "--no-detach", "-d", "ALL", "-S"});
  REQUIRE(settings.size() == 8);
  CHECK(settings[0].key == "port");
  CHECK(settings[0].value == "2811");
  CHECK(settings[1].key == "restrict_paths");
  CHECK(settings[1].value == "RW/data");
  CHECK(settings[2].key == "allow_anonymous");
  CHECK(settings[2].value == "1");
  CHECK(settings[3].key == "fork");
  CHECK(settings[3].value == "0");
  CHECK(settings[4].key == "fork");
  CHECK(settings[4].value == "0");
  CHECK(settings[5].key == "detach");
  CHECK(settings[5].value == "0");
  CHECK(settings[6].key == "log_level");
  CHECK(settings[6].value == "ALL");
  CHECK(settings[7].value == "1");
  CHECK(settings[7].origin == "command line");
  // A value option cannot be negated; unknown words and missing values are named.
  CHECK(refusal_of_command_line({"-no-port", "1"}).find("-no-port") != std::string::npos);
  CHECK(refusal_of_command_line({"-bogus"}).find("-bogus") != std::string::npos);
  CHECK(refusal_of_command_line({"-port"}).find("needs a value") != std::string::npos);
  CHECK(refusal_of_command_line({"-port", "many"}).find("number") != std::string::npos);
  CHECK(refusal_of_command_line({"plain"}).find("plain") != std::string::npos);
}

TEST_CASE("A Globus config file: key value lines, quotes, comments and $ variables", "[config]") {
  std::string why;
  const auto file = parse_globus_config_file(
      "# globus-gridftp-server configuration file\n"
      "\n"
      "port 2811\n"
      "  restrict_paths RW/data,R/pub\n"
      "banner \"Welcome to the DTN\"\n"
      "$GLOBUS_TCP_PORT_RANGE 50000,51000\n"
      "$X509_USER_CERT \"/etc/grid-security/host cert.pem\"\n"
      "allow_anonymous 1\n"
      "port 5000\n",
      "/etc/gridftp.conf", why);
  INFO(why);
  REQUIRE(file);
  REQUIRE(file->settings.size() == 5);
  CHECK(file->settings[0].key == "port");
  CHECK(file->settings[0].origin == "/etc/gridftp.conf:3");
  CHECK(file->settings[1].value == "RW/data,R/pub");
  CHECK(file->settings[2].value == "Welcome to the DTN");
  CHECK(file->settings[4].value == "5000");  // later lines win when applied in order
  REQUIRE(file->environment.size() == 2);
  CHECK(file->environment[0] ==
        std::pair<std::string, std::string>{"GLOBUS_TCP_PORT_RANGE", "50000,51000"});
  CHECK(file->environment[1].second == "/etc/grid-security/host cert.pem");
}

TEST_CASE("Bad Globus config lines are refused with file and line", "[config]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"port 2811 # control\n", "text after the value"},
      {"port\n", "no value"},
      {"banner \"open\n", "unterminated quote"},
      {"restrict-paths RW/data\n", "unknown option 'restrict-paths'"},
      {"allow_anonymous yes\n", "0 or 1"},
      {"port 28x1\n", "a number"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    std::string why;
    CHECK_FALSE(parse_globus_config_file("# first\n" + text, "g.conf", why));
    CHECK(why.find("g.conf:2") != std::string::npos);
    CHECK(why.find(expected) != std::string::npos);
  }
}

TEST_CASE("A Globus config directory skips dot files, backups and package leftovers", "[config]") {
  for (const auto* read : {"gridftp-hdfs", "10-ports.conf", "site"})
    CHECK(is_config_dir_entry(read));
  for (const auto* skipped : {".hidden", "ports~", "old.bak", "a.rpmnew", "a.rpmsave",
                              "a.dpkg-dist", "a.dpkg-new", "a.dpkg-old", ""}) {
    INFO(skipped);
    CHECK_FALSE(is_config_dir_entry(skipped));
  }
}
