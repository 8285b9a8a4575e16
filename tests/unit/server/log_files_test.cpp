#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "server/logging/globus_logging_defaults.hpp"
#include "server/logging/log_setup.hpp"

namespace gridftp::server {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

fs::path fresh_directory(const std::string& name) {
  const auto dir =
      fs::temp_directory_path() / ("gridftpd-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST_CASE("reopening after a rename writes new lines to a new file at the path",
          "[logging][reopen]") {
  const auto dir = fresh_directory("reopen");
  LoggingConfig config;
  config.server_log = dir / "server.log";
  config.transfer_log = dir / "transfer.log";
  std::string why;
  auto loggers = make_loggers(config, why);
  REQUIRE(loggers);
  REQUIRE(loggers->files.size() == 2);
  loggers->transfer->info("first");
  loggers->control->info("server first");
  fs::rename(dir / "transfer.log", dir / "transfer.log.1");
  fs::rename(dir / "server.log", dir / "server.log.1");
  loggers->transfer->info("second");  // before the reopen: still the renamed file
  CHECK(reopen_log_files(loggers->files).empty());
  loggers->transfer->info("third");
  loggers->control->info("server second");
  loggers->transfer->flush();
  loggers->control->flush();
  CHECK(read_all(dir / "transfer.log.1") == "first\nsecond\n");
  CHECK(read_all(dir / "transfer.log") == "third\n");
  CHECK(read_all(dir / "server.log.1").find("server first") != std::string::npos);
  CHECK(read_all(dir / "server.log").find("server second") != std::string::npos);
  CHECK(read_all(dir / "server.log").find("server first") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a log file that cannot be opened again keeps the old one and says why",
          "[logging][reopen]") {
  const auto dir = fresh_directory("reopen-fail");
  LoggingConfig config;
  config.transfer_log = dir / "logs" / "transfer.log";
  fs::create_directories(dir / "logs");
  std::string why;
  auto loggers = make_loggers(config, why);
  REQUIRE(loggers);
  loggers->transfer->info("before");
  fs::rename(dir / "logs", dir / "moved");
  std::ofstream(dir / "logs") << "a file where the directory was\n";  // no file can be made in it
  const auto problems = reopen_log_files(loggers->files);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("transfer.log") != std::string::npos);
  loggers->transfer->info("after");
  loggers->transfer->flush();
  CHECK(read_all(dir / "moved" / "transfer.log") == "before\nafter\n");
  fs::remove_all(dir);
}

TEST_CASE("a server log on standard error has no file to reopen", "[logging][reopen]") {
  std::string why;
  auto loggers = make_loggers(LoggingConfig{}, why);
  REQUIRE(loggers);
  CHECK(loggers->files.empty());
  CHECK(loggers->transfer == nullptr);
  CHECK(reopen_log_files(loggers->files).empty());
}

TEST_CASE("an unopenable log file is an error naming it", "[logging]") {
  const auto dir = fresh_directory("unopenable");
  std::ofstream(dir / "plain") << "not a directory\n";
  LoggingConfig config;
  config.transfer_log = dir / "plain" / "transfer.log";
  std::string why;
  CHECK_FALSE(make_loggers(config, why));
  CHECK(why.find("plain/transfer.log") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("transfer_log_format names json and netlogger only", "[logging]") {
  CHECK(transfer_log_format_named("json") == TransferLogFormat::Json);
  CHECK(transfer_log_format_named("netlogger") == TransferLogFormat::NetLogger);
  CHECK_FALSE(transfer_log_format_named("NetLogger"));
  CHECK_FALSE(transfer_log_format_named(""));
  std::string why;
  LoggingConfig config;
  config.transfer_log_format = "netlogger";
  auto loggers = make_loggers(config, why);
  REQUIRE(loggers);
  CHECK(loggers->transfer_format == TransferLogFormat::NetLogger);
  CHECK_FALSE(loggers->host.empty());
}

TEST_CASE("a Globus-style start logs at ERROR with NetLogger transfer lines", "[logging]") {
  LoggingConfig logging;
  logging.transfer_log = "/var/log/gridftp-transfer.log";
  apply_globus_logging_defaults(logging);
  CHECK(logging.level == "error");
  CHECK(logging.transfer_log_format == "netlogger");
  CHECK(logging.transfer_log == "/var/log/gridftp-transfer.log");  // -Z still names the file
  CHECK(LoggingConfig{}.transfer_log_format == "json");
}

}  // namespace
}  // namespace gridftp::server
