#include "server/session/session_replies.hpp"

#include <utility>

#include "protocol/control/reply_for_error.hpp"

namespace gridftp::server {

void SessionReplies::send(int code, std::string text) {
  send(protocol::control::Reply{code, {std::move(text)}});
}

void SessionReplies::send_error(std::error_code ec) {
  send(protocol::control::reply_for_error(ec));
}

void SessionReplies::send_error(std::error_code ec, std::string text) {
  send(protocol::control::reply_for_error(ec, std::move(text)));
}

void SessionReplies::send_error(Condition condition) { send_error(error_code_for(condition)); }

void SessionReplies::send_error(Condition condition, std::string text) {
  send_error(error_code_for(condition), std::move(text));
}

void SessionReplies::send_error(Condition condition, std::vector<std::string> lines) {
  send(protocol::control::reply_for_error(error_code_for(condition), std::move(lines)));
}

}  // namespace gridftp::server
