// How a command handler answers the client: the one thing every part of a session that runs
// commands needs from the session, and no more. ControlSession implements send(Reply) (format,
// GSI wrapping once the control channel is protected, the ReplyWriter's queue) and
// close_after_replies; a unit test implements them by recording. A part holding a SessionReplies&
// cannot reach the session's other state.
#pragma once

#include <string>
#include <system_error>
#include <vector>

#include "protocol/control/reply.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::server {

class SessionReplies {
 public:
  SessionReplies() = default;
  virtual ~SessionReplies() = default;
  SessionReplies(const SessionReplies&) = delete;
  SessionReplies& operator=(const SessionReplies&) = delete;

  // Queues one reply; replies leave in the order queued.
  virtual void send(protocol::control::Reply reply) = 0;
  void send(int code, std::string text);
  // Ends the session once the replies queued so far have gone out (QUIT, a login refused too
  // often).
  virtual void close_after_replies() = 0;

  // Every 4xx/5xx reply: the caller says what went wrong and the error map
  // (protocol/control/reply_for_error) picks the code, so one condition always gets one code.
  // `text` or `lines` replace the row's wording where the reply says more than the row.
  // tests/static/check_error_replies.sh fails on negative codes sent any other way.
  void send_error(std::error_code ec);
  void send_error(std::error_code ec, std::string text);
  void send_error(Condition condition);
  void send_error(Condition condition, std::string text);
  void send_error(Condition condition, std::vector<std::string> lines);
};

}  // namespace gridftp::server
