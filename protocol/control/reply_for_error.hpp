// The one map from internal errors (any module's codes, and errno) to FTP replies.
#pragma once

#include <string>
#include <system_error>
#include <vector>

#include "protocol/control/reply.hpp"

namespace gridftp::protocol::control {

// The row for `ec`: its code and its text.
Reply reply_for_error(std::error_code ec);
// The row's code with the caller's wording, for a reply that says more than the row's text
// ("Illegal PORT command: data port below 1024 refused."). The code still comes from the map.
Reply reply_for_error(std::error_code ec, std::string text);
// The same for a multi-line reply (Globus's "530-Login incorrect. : ...", "530 End."). `lines`
// holds at least one line.
Reply reply_for_error(std::error_code ec, std::vector<std::string> lines);

}  // namespace gridftp::protocol::control
