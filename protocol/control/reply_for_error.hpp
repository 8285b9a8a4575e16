// The one map from internal errors (any module's codes, and errno) to FTP replies.
#pragma once

#include <system_error>

#include "protocol/control/reply.hpp"

namespace gridftp::protocol::control {

Reply reply_for_error(std::error_code ec);

}  // namespace gridftp::protocol::control
