// A server reply (RFC 959 §4.2) and its wire form. Multi-line replies put the code on the first
// and last lines; continuation lines are written as given (Globus indents them with a space).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gridftp::protocol::control {

struct Reply {
  int code = 0;
  std::vector<std::string> lines;  // at least one; several make a multi-line reply
};

inline Reply make_reply(int code, std::string text) { return Reply{code, {std::move(text)}}; }

// A reply carrying a site's message (banner, login message): `head` lines, then the message's
// lines (split at LF, a CR before it dropped, a final line break ignored); when that makes more
// than one line, a closing "End." as globus-gridftp-server sends ("220-line one", "220 End.").
Reply make_message_reply(int code, std::vector<std::string> head, std::string_view message);

// "DDD text\r\n", or "DDD-first\r\n ...\r\nDDD last\r\n". A continuation line that would read as
// an end line (it begins "DDD ") is indented by one space so the reply cannot end early.
std::string format_reply(const Reply& reply);

}  // namespace gridftp::protocol::control
