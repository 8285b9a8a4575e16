#include "server/logging/log_setup.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace gridftp::server {

Result<Loggers> make_loggers(const LoggingConfig& config, std::string& error_message) {
  Loggers loggers;
  try {
    spdlog::sink_ptr sink;
    if (config.server_log.empty()) {
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(config.server_log.string());
    }
    loggers.control = std::make_shared<spdlog::logger>("control", sink);
    loggers.control->set_level(spdlog::level::from_str(config.level));
    loggers.control->flush_on(spdlog::level::info);
    if (!config.transfer_log.empty()) {
      auto transfer_sink =
          std::make_shared<spdlog::sinks::basic_file_sink_mt>(config.transfer_log.string());
      loggers.transfer = std::make_shared<spdlog::logger>("transfer", transfer_sink);
      loggers.transfer->set_pattern("%v");
      loggers.transfer->set_level(spdlog::level::info);
    }
  } catch (const spdlog::spdlog_ex& error) {
    error_message = error.what();
    return make_error(std::make_error_code(std::errc::io_error));
  }
  return loggers;
}

}  // namespace gridftp::server
