#include "server/logging/log_setup.hpp"

#include <array>
#include <filesystem>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

namespace gridftp::server {
namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

}  // namespace

std::optional<TransferLogFormat> transfer_log_format_named(std::string_view name) {
  if (name == "json") return TransferLogFormat::Json;
  if (name == "netlogger") return TransferLogFormat::NetLogger;
  return std::nullopt;
}

Result<Loggers> make_loggers(const LoggingConfig& config, std::string& error_message) {
  Loggers loggers;
  loggers.transfer_format =
      transfer_log_format_named(config.transfer_log_format).value_or(TransferLogFormat::Json);
  loggers.host = host_name();
  try {
    spdlog::sink_ptr sink;
    if (config.server_log.empty()) {
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else {
      auto file = std::make_shared<ReopenableFileSink>(config.server_log);
      loggers.files.push_back(file);
      sink = std::move(file);
    }
    loggers.control = std::make_shared<spdlog::logger>("control", sink);
    loggers.control->set_level(spdlog::level::from_str(config.level));
    loggers.control->flush_on(spdlog::level::info);
    if (!config.transfer_log.empty()) {
      auto transfer_sink = std::make_shared<ReopenableFileSink>(config.transfer_log);
      loggers.files.push_back(transfer_sink);
      loggers.transfer = std::make_shared<spdlog::logger>("transfer", transfer_sink);
      loggers.transfer->set_pattern("%v");
      loggers.transfer->set_level(spdlog::level::info);
    }
  } catch (const spdlog::spdlog_ex& error) {
    error_message = error.what();
    return make_error(std::make_error_code(std::errc::io_error));
  } catch (const std::filesystem::filesystem_error& error) {
    error_message = error.what();
    return make_error(std::make_error_code(std::errc::io_error));
  }
  return loggers;
}

std::vector<std::string> reopen_log_files(
    const std::vector<std::shared_ptr<ReopenableFileSink>>& files) {
  std::vector<std::string> problems;
  for (const auto& file : files) {
    std::string why;
    if (!file->reopen(why)) problems.push_back(file->path().string() + ": " + why);
  }
  return problems;
}

}  // namespace gridftp::server
