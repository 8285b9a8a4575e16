#include "server/logging/globus_logging_defaults.hpp"

namespace gridftp::server {

void apply_globus_logging_defaults(LoggingConfig& logging) {
  logging.level = "error";
  logging.transfer_log_format = "netlogger";
}

}  // namespace gridftp::server
