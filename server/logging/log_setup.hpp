// Creates the server's named loggers ("control", "transfer") from [logging]. Called once by main.
#pragma once

#include <memory>
#include <string>

#include "protocol/core/result.hpp"
#include "server/config/server_config.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

struct Loggers {
  std::shared_ptr<spdlog::logger> control;
  std::shared_ptr<spdlog::logger> transfer;  // null when no transfer log is configured
};

// Errors: the sink could not be opened (the message names the file).
Result<Loggers> make_loggers(const LoggingConfig& config, std::string& error_message);

}  // namespace gridftp::server
