// Creates the server's named loggers ("control", "transfer") from [logging], and opens their
// files again after a rotation. Called by main.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"
#include "server/config/server_config.hpp"
#include "server/logging/reopenable_file_sink.hpp"
#include "server/logging/transfer_log.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

struct Loggers {
  std::shared_ptr<spdlog::logger> control;
  std::shared_ptr<spdlog::logger> transfer;  // null when no transfer log is configured
  TransferLogFormat transfer_format = TransferLogFormat::Json;
  std::string host;  // this machine's name, for NetLogger lines
  // The files behind both loggers (none when the server log is standard error and there is no
  // transfer log): what reopen_log_files opens again.
  std::vector<std::shared_ptr<ReopenableFileSink>> files;
};

// Errors: the sink could not be opened (the message names the file).
Result<Loggers> make_loggers(const LoggingConfig& config, std::string& error_message);

// Opens every file of `files` again at its path (SIGHUP, after logrotate renamed them away).
// Returns a problem for each that could not be opened; those keep writing to the old file.
std::vector<std::string> reopen_log_files(
    const std::vector<std::shared_ptr<ReopenableFileSink>>& files);

// The transfer-log format a config value names ("json", "netlogger"); nullopt for another.
std::optional<TransferLogFormat> transfer_log_format_named(std::string_view name);

}  // namespace gridftp::server
