#include "server/config/server_config.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "server/config/embedded_config.hpp"

using gridftp::server::ConfigLoad;
using gridftp::server::parse_config;
using gridftp::server::ServerConfig;
using gridftp::server::validate;

namespace {

std::string read_sample() {
  std::ifstream file(std::string(GRIDFTP_SOURCE_DIR) + "/conf/gridftpd.toml");
  REQUIRE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

bool mentions(const std::vector<std::string>& problems, std::string_view a,
              std::string_view b = {}) {
  for (const auto& problem : problems) {
    if (problem.find(a) != std::string::npos && problem.find(b) != std::string::npos) return true;
  }
  return false;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& problem : problems) out += problem + "\n";
  return out;
}

// A config that validate() accepts: anonymous on with an absolute root.
ServerConfig valid_config() {
  ServerConfig config;
  config.anonymous.enabled = true;
  config.anonymous.root = "/srv/gridftpd/public";
  config.anonymous.writable = {"incoming"};
  return config;
}

}  // namespace

TEST_CASE("the sample config parses with no problems and validates", "[config]") {
  const auto load = parse_config(read_sample(), "gridftpd.toml");
  INFO(joined(load.problems));
  CHECK(load.ok());
  CHECK(validate(load.config).empty());
}

TEST_CASE("the embedded default config is the sample file and passes validation", "[config]") {
  const auto embedded = gridftp::server::embedded_default_config();
  CHECK(embedded == read_sample());
  const auto load = parse_config(embedded, "built-in config");
  INFO(joined(load.problems));
  CHECK(load.ok());
  const auto problems = validate(load.config);
  INFO(joined(problems));
  CHECK(problems.empty());
}

TEST_CASE("struct defaults equal the sample's values except the demo anonymous overrides",
          "[config]") {
  const auto load = parse_config(read_sample(), "gridftpd.toml");
  REQUIRE(load.ok());
  const auto& sample = load.config;
  const ServerConfig defaults;

  CHECK(sample.listen.control_interface == defaults.listen.control_interface);
  CHECK(sample.listen.port == defaults.listen.port);
  CHECK(sample.listen.data_interface == defaults.listen.data_interface);
  CHECK(sample.listen.passive_port_min == defaults.listen.passive_port_min);
  CHECK(sample.listen.passive_port_max == defaults.listen.passive_port_max);
  CHECK(sample.listen.require_data_peer_match == defaults.listen.require_data_peer_match);

  CHECK(sample.server.threads == defaults.server.threads);
  CHECK(sample.server.banner == defaults.server.banner);
  CHECK(sample.server.create_missing_roots == defaults.server.create_missing_roots);

  CHECK(sample.limits.max_sessions == defaults.limits.max_sessions);
  CHECK(sample.limits.max_sessions_per_user == defaults.limits.max_sessions_per_user);
  CHECK(sample.limits.max_command_line_bytes == defaults.limits.max_command_line_bytes);

  CHECK(sample.timeouts.idle_seconds == defaults.timeouts.idle_seconds);
  CHECK(sample.timeouts.data_seconds == defaults.timeouts.data_seconds);
  CHECK(sample.timeouts.login_seconds == defaults.timeouts.login_seconds);
  CHECK(sample.timeouts.shutdown_grace_seconds == defaults.timeouts.shutdown_grace_seconds);

  CHECK(sample.accounts.password_file == defaults.accounts.password_file);

  CHECK(sample.gsi.delegation_key == defaults.gsi.delegation_key);

  CHECK(sample.storage.block_bytes == defaults.storage.block_bytes);
  CHECK(sample.storage.sendfile == defaults.storage.sendfile);

  CHECK(sample.logging.level == defaults.logging.level);
  CHECK(sample.logging.server_log == defaults.logging.server_log);
  CHECK(sample.logging.transfer_log == defaults.logging.transfer_log);
  CHECK(sample.logging.transfer_log_format == defaults.logging.transfer_log_format);

  // The documented demo overrides ("Off by default outside this demo config").
  CHECK_FALSE(defaults.anonymous.enabled);
  CHECK(sample.anonymous.enabled);
  CHECK(defaults.anonymous.root.empty());
  CHECK(sample.anonymous.root == "/srv/gridftpd/public");
  CHECK(defaults.anonymous.writable.empty());
  CHECK(sample.anonymous.writable == std::vector<std::string>{"incoming"});
}

TEST_CASE("every table and key in the sample is one parse_config reads", "[config]") {
  // Reading the sample with all values removed must give no unknown-key problems, and re-adding a
  // misspelt key must give one: the sample documents exactly the keys the struct has.
  const auto sample = read_sample();
  const auto load = parse_config(sample, "gridftpd.toml");
  CHECK_FALSE(mentions(load.problems, "unknown"));
  const auto misspelt = parse_config(sample + "\n[logging2]\nlevel = \"info\"\n", "gridftpd.toml");
  CHECK(mentions(misspelt.problems, "logging2", "unknown table"));
}

TEST_CASE("The striping table reads, prints back and is checked", "[config][striping]") {
  const auto load = parse_config(
      "[gsi]\nenabled = true\n[striping]\nmovers = [\"dtn1:6001\", \"[::1]:6002\"]\n"
      "frontends = [\"/O=Grid/CN=fe\"]\nhybrid = true\n",
      "striping");
  REQUIRE(load.ok());
  CHECK(load.config.striping.movers == std::vector<std::string>{"dtn1:6001", "[::1]:6002"});
  CHECK(load.config.striping.frontends == std::vector<std::string>{"/O=Grid/CN=fe"});
  CHECK(load.config.striping.hybrid);
  CHECK_FALSE(ServerConfig{}.striping.hybrid);  // Globus's default: unstriped on the movers too
  CHECK(validate(load.config).empty());
  const auto again = parse_config(gridftp::server::format_config(load.config), "printed");
  REQUIRE(again.ok());
  CHECK(again.config.striping.movers == load.config.striping.movers);
  CHECK(again.config.striping.frontends == load.config.striping.frontends);
  CHECK(again.config.striping.hybrid);

  auto both = load.config;
  both.striping.mover = true;
  CHECK(mentions(validate(both), "not both"));
  auto no_port = load.config;
  no_port.striping.movers = {"dtn1"};
  CHECK(mentions(validate(no_port), "dtn1", "host:port"));
  auto no_gsi = load.config;
  no_gsi.gsi.enabled = false;
  no_gsi.anonymous.enabled = true;
  CHECK(mentions(validate(no_gsi), "[gsi] enabled"));
}

TEST_CASE("an empty config gives the struct defaults", "[config]") {
  const auto load = parse_config("", "empty");
  CHECK(load.ok());
  CHECK(load.config.listen.port == 2811);
  CHECK(load.config.limits.max_command_line_bytes == 4096);
  CHECK_FALSE(load.config.anonymous.enabled);
}

TEST_CASE("an unknown key is a problem naming table.key and its line", "[config]") {
  const auto load = parse_config("[limits]\nmax_sessions = 5\nbogus = 1\n", "test.toml");
  REQUIRE(load.problems.size() == 1);
  CHECK(mentions(load.problems, "limits.bogus"));
  CHECK(mentions(load.problems, "line 3"));
  CHECK(mentions(load.problems, "unknown key"));
  CHECK(load.config.limits.max_sessions == 5);
}

TEST_CASE("an unknown table is a problem naming it and its line", "[config]") {
  const auto load = parse_config("\n\n[bogus]\nx = 1\n", "test.toml");
  CHECK_FALSE(load.ok());
  CHECK(mentions(load.problems, "bogus", "line 3"));
}

TEST_CASE("a wrong type is a problem naming table.key and its line", "[config]") {
  auto [text, key, line] = GENERATE(table<std::string, std::string, std::string>({
      {"[listen]\nport = \"2811\"\n", "listen.port", "line 2"},
      {"[listen]\n\ncontrol_interface = 127\n", "listen.control_interface", "line 3"},
      {"[server]\ncreate_missing_roots = \"yes\"\n", "server.create_missing_roots", "line 2"},
      {"[server]\nthreads = 1.5\n", "server.threads", "line 2"},
      {"[listen]\nport = 2e181\n", "listen.port", "line 2"},  // no float-to-integer overflow
      {"[server]\nthreads = true\n", "server.threads", "line 2"},
      {"[anonymous]\nwritable = \"incoming\"\n", "anonymous.writable", "line 2"},
      {"[anonymous]\nwritable = [\"a\", 1]\n", "anonymous.writable", "line 2"},
      {"[anonymous]\nroot = 5\n", "anonymous.root", "line 2"},
      {"[logging]\nlevel = 3\n", "logging.level", "line 2"},
      {"[limits]\nmax_sessions = [1]\n", "limits.max_sessions", "line 2"},
  }));
  INFO(text);
  const auto load = parse_config(text, "test.toml");
  INFO(joined(load.problems));
  CHECK(load.problems.size() == 1);
  CHECK(mentions(load.problems, key, line));
}

TEST_CASE("a wrong type leaves the default in place", "[config]") {
  const auto load = parse_config("[listen]\nport = \"x\"\n", "test.toml");
  CHECK(load.config.listen.port == 2811);
}

TEST_CASE("integer keys accept their boundaries and reject one past them", "[config]") {
  auto [text, ok] = GENERATE(table<std::string, bool>({
      {"[listen]\nport = 0\n", true},
      {"[listen]\nport = 65535\n", true},
      {"[listen]\nport = 65536\n", false},
      {"[listen]\nport = -1\n", false},
      {"[listen]\npassive_port_max = 65536\n", false},
      {"[server]\nthreads = 4294967295\n", true},
      {"[server]\nthreads = 4294967296\n", false},
      {"[limits]\nmax_command_line_bytes = 9223372036854775807\n", true},
      {"[timeouts]\nidle_seconds = -5\n", false},
  }));
  INFO(text);
  const auto load = parse_config(text, "test.toml");
  INFO(joined(load.problems));
  CHECK(load.ok() == ok);
  if (!ok) CHECK(mentions(load.problems, "line 2", "out of range"));
}

TEST_CASE("a table given as a plain value is a problem", "[config]") {
  const auto load = parse_config("listen = 5\n", "test.toml");
  CHECK(mentions(load.problems, "listen", "expected a table"));
}

TEST_CASE("a TOML syntax error names the source and the line", "[config]") {
  auto [text, line] = GENERATE(table<std::string, std::string>({
      {"[listen]\nport = \n", "line 2"},
      {"[listen\n", "line 1"},
      {"[listen]\nport = 1\nport = 2\n", "line 3"},
      {"\n\n\n[server]\nbanner = \"unterminated\n", "line 5"},
  }));
  INFO(text);
  const auto load = parse_config(text, "my.toml");
  REQUIRE(load.problems.size() == 1);
  INFO(load.problems[0]);
  CHECK(mentions(load.problems, "my.toml", line));
}

TEST_CASE("every problem is reported, not just the first", "[config]") {
  const auto load = parse_config("[listen]\nport = \"x\"\nfoo = 1\n[limits]\nbar = 2\n", "t.toml");
  CHECK(load.problems.size() == 3);
  CHECK(mentions(load.problems, "listen.port", "line 2"));
  CHECK(mentions(load.problems, "listen.foo", "line 3"));
  CHECK(mentions(load.problems, "limits.bar", "line 5"));
}

TEST_CASE("validate accepts a usable config", "[config][validate]") {
  CHECK(validate(valid_config()).empty());
  auto with_accounts = ServerConfig{};
  with_accounts.accounts.password_file = "/etc/gridftpd/passwd";
  CHECK(validate(with_accounts).empty());
}

TEST_CASE("validate checks the passive port range", "[config][validate]") {
  auto [min, max, ok] = GENERATE(table<int, int, bool>({
      {0, 0, true},
      {5000, 5000, true},
      {5000, 5100, true},
      {1, 65535, true},
      {5100, 5000, false},
      {5000, 0, false},
      {0, 5000, false},
  }));
  auto config = valid_config();
  config.listen.passive_port_min = static_cast<std::uint16_t>(min);
  config.listen.passive_port_max = static_cast<std::uint16_t>(max);
  const auto problems = validate(config);
  INFO(min << ".." << max << "\n" << joined(problems));
  CHECK(problems.empty() == ok);
  if (!ok) CHECK(mentions(problems, "passive_port"));
}

TEST_CASE("validate takes an IPv4 passive_address or none", "[config][validate]") {
  auto [address, ok] = GENERATE(table<const char*, bool>({
      {"", true},
      {"203.0.113.7", true},
      {"::1", false},
      {"dtn.example.org", false},
      {"203.0.113", false},
  }));
  auto config = valid_config();
  config.listen.passive_address = address;
  const auto problems = validate(config);
  INFO(address << "\n" << joined(problems));
  CHECK(problems.empty() == ok);
  if (!ok) CHECK(mentions(problems, "passive_address"));
}

TEST_CASE("validate requires an absolute anonymous root when anonymous is enabled",
          "[config][validate]") {
  auto config = valid_config();
  config.anonymous.root = "srv/public";
  CHECK(mentions(validate(config), "anonymous.root"));
  config.anonymous.root = "";
  CHECK(mentions(validate(config), "anonymous.root"));
  config.anonymous.enabled = false;
  config.accounts.password_file = "/etc/passwd-gridftp";
  CHECK_FALSE(mentions(validate(config), "anonymous.root"));
}

TEST_CASE("validate refuses writable areas that are not relative subdirectories",
          "[config][validate]") {
  const std::string area =
      GENERATE(std::string(".."), std::string("../etc"), std::string("a/../../b"),
               std::string("a/.."), std::string("/incoming"), std::string(""));
  auto config = valid_config();
  config.anonymous.writable = {"incoming", area};
  const auto problems = validate(config);
  INFO("area '" << area << "'\n" << joined(problems));
  CHECK(mentions(problems, "anonymous.writable"));
}

TEST_CASE("validate accepts nested and dotted relative writable areas", "[config][validate]") {
  const std::string area = GENERATE(std::string("incoming"), std::string("a/b/c"),
                                    std::string("..a"), std::string("a..b"), std::string("."));
  auto config = valid_config();
  config.anonymous.writable = {area};
  INFO("area '" << area << "'");
  CHECK(validate(config).empty());
}

TEST_CASE("validate checks the logging level", "[config][validate]") {
  auto [level, ok] = GENERATE(table<std::string, bool>({
      {"trace", true},
      {"debug", true},
      {"info", true},
      {"warn", true},
      {"error", true},
      {"critical", true},
      {"off", true},
      {"INFO", false},
      {"warning", false},
      {"", false},
      {"verbose", false},
  }));
  auto config = valid_config();
  config.logging.level = level;
  const auto problems = validate(config);
  INFO("level '" << level << "'");
  CHECK(problems.empty() == ok);
  if (!ok) CHECK(mentions(problems, "logging.level"));
}

TEST_CASE("validate checks when files go out with sendfile", "[config][validate]") {
  using gridftp::transport::SendfileUse;
  auto [text, ok, use] = GENERATE(table<std::string, bool, SendfileUse>({
      {"other-hosts", true, SendfileUse::OtherHosts},
      {"always", true, SendfileUse::Always},
      {"never", true, SendfileUse::Never},
      {"Always", false, SendfileUse::OtherHosts},
      {"", false, SendfileUse::OtherHosts},
      {"loopback", false, SendfileUse::OtherHosts},
  }));
  auto config = valid_config();
  config.storage.sendfile = text;
  const auto problems = validate(config);
  INFO("sendfile '" << text << "'");
  CHECK(problems.empty() == ok);
  if (ok) CHECK(gridftp::server::sendfile_use(config.storage) == use);
  if (!ok) CHECK(mentions(problems, "storage.sendfile"));
}

TEST_CASE("validate checks the delegation key type", "[config][validate]") {
  auto [type, ok] = GENERATE(table<std::string, bool>({
      {"ec-p256", true},
      {"rsa", true},
      {"RSA", false},
      {"ec", false},
      {"", false},
  }));
  auto config = valid_config();
  config.gsi.delegation_key = type;
  const auto problems = validate(config);
  INFO("delegation_key '" << type << "'");
  CHECK(problems.empty() == ok);
  if (!ok) CHECK(mentions(problems, "gsi.delegation_key"));
}

TEST_CASE("validate requires some way to log in", "[config][validate]") {
  ServerConfig config;  // anonymous off, no password file
  CHECK(mentions(validate(config), "no way to log in"));
}

TEST_CASE("validate checks the command line limit and session limit at their boundaries",
          "[config][validate]") {
  auto config = valid_config();
  config.limits.max_command_line_bytes = 64;
  CHECK(validate(config).empty());
  config.limits.max_command_line_bytes = 63;
  CHECK(mentions(validate(config), "max_command_line_bytes"));
  config = valid_config();
  config.limits.max_sessions = 1;
  CHECK(validate(config).empty());
  config.limits.max_sessions = 0;
  CHECK(mentions(validate(config), "max_sessions"));
}

TEST_CASE("logging.transfer_log_format reads, validates and prints back", "[config][logging]") {
  auto load = parse_config("[logging]\ntransfer_log_format = \"netlogger\"\n", "t.toml");
  REQUIRE(load.ok());
  CHECK(load.config.logging.transfer_log_format == "netlogger");
  const auto again = parse_config(gridftp::server::format_config(load.config), "printed");
  REQUIRE(again.ok());
  CHECK(again.config.logging.transfer_log_format == "netlogger");
  CHECK(parse_config("", "t.toml").config.logging.transfer_log_format == "json");

  auto config = valid_config();
  config.logging.transfer_log_format = "xml";
  CHECK(mentions(validate(config), "logging.transfer_log_format", "xml"));
  config.logging.transfer_log_format = "netlogger";
  CHECK(validate(config).empty());
}
