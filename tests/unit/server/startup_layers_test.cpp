// Start-up layers (docs/GLOBUS.md §2): a -c file in gridftpd's TOML is the base; a Globus-format
// -c file and the -C directory's files become settings over the built-in config, directory
// first, alphabetically, skipping backups; `$NAME value` lines become environment.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "server/config/globus_settings.hpp"
#include "server/startup.hpp"

using gridftp::server::load_startup_layers;
using gridftp::server::globus::apply_globus_settings;
using gridftp::server::globus::ProcessOptions;

namespace {

std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("gridftpd-startup-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("A TOML -c file is the base config and gives no settings", "[startup][config]") {
  const auto dir = scratch_dir("toml");
  write(dir / "g.toml", "# comment\n[listen]\nport = 4811\n");
  const auto layers = load_startup_layers((dir / "g.toml").string(), std::nullopt, false);
  REQUIRE(layers.problems.empty());
  CHECK(layers.format == "gridftpd TOML");
  CHECK(layers.config.listen.port == 4811);
  CHECK(layers.settings.empty());
}

TEST_CASE("Globus files: the directory alphabetically, then the main file, which wins",
          "[startup][config]") {
  const auto dir = scratch_dir("globus");
  std::filesystem::create_directories(dir / "d");
  write(dir / "gridftp.conf", "# Debian's file\nport 2812\n$GLOBUS_TCP_PORT_RANGE 50000,50100\n");
  write(dir / "d" / "b-threads", "threads 3\nport 2999\n");
  write(dir / "d" / "a-banner", "banner \"site banner\"\nthreads 2\n");
  write(dir / "d" / "c.rpmsave", "port 1\n");
  write(dir / "d" / ".hidden", "port 1\n");
  const auto layers =
      load_startup_layers((dir / "gridftp.conf").string(), (dir / "d").string(), false);
  INFO(layers.problems.size());
  REQUIRE(layers.problems.empty());
  CHECK(layers.format == "Globus");
  REQUIRE(layers.environment.size() == 1);
  CHECK(layers.environment[0].first == "GLOBUS_TCP_PORT_RANGE");
  auto config = layers.config;
  ProcessOptions process;
  const auto problems = apply_globus_settings(layers.settings, config, process);
  CHECK(problems.empty());
  CHECK(config.listen.port == 2812);  // main file over the directory; backups never read
  CHECK(config.server.threads == 3);  // b- after a-
  CHECK(config.server.banner == "site banner");
}

TEST_CASE("A bad line in a Globus config file names the file and line", "[startup][config]") {
  const auto dir = scratch_dir("bad");
  write(dir / "gridftp.conf", "port 2811\nno_such_option 1\n");
  const auto layers = load_startup_layers((dir / "gridftp.conf").string(), std::nullopt, false);
  REQUIRE(layers.problems.size() == 1);
  CHECK(layers.problems[0].find("gridftp.conf") != std::string::npos);
  CHECK(layers.problems[0].find("2") != std::string::npos);
  CHECK(layers.problems[0].find("no_such_option") != std::string::npos);
}

TEST_CASE("A missing -c file is a problem naming it", "[startup][config]") {
  const auto layers = load_startup_layers("/nonexistent/gridftp.conf", std::nullopt, false);
  REQUIRE(layers.problems.size() == 1);
  CHECK(layers.problems[0].find("/nonexistent/gridftp.conf") != std::string::npos);
}

TEST_CASE("A Globus-style start begins from Globus's defaults, not the built-in demo config",
          "[startup][config]") {
  const auto dir = scratch_dir("globus-defaults");
  write(dir / "gridftp.conf", "port 2811\n");
  for (const auto& layers :
       {load_startup_layers((dir / "gridftp.conf").string(), std::nullopt, false),
        load_startup_layers(std::nullopt, std::nullopt, /*globus_start=*/true)}) {
    REQUIRE(layers.problems.empty());
    CHECK(layers.format == "Globus");
    CHECK(layers.config.listen.control_interface == "::");  // every interface, as Globus
    CHECK_FALSE(layers.config.anonymous.enabled);
    CHECK_FALSE(layers.config.tls.enabled);
    CHECK(layers.config.gsi.enabled_unset);  // the host credential decides
  }
  // Nothing Globus-style: the demo config, anonymous on, loopback only.
  const auto demo = load_startup_layers(std::nullopt, std::nullopt, false);
  REQUIRE(demo.problems.empty());
  CHECK(demo.format == "built-in");
  CHECK(demo.config.listen.control_interface == "127.0.0.1");
  CHECK(demo.config.anonymous.enabled);
}
