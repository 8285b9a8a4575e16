// One FTP control connection as the client sees it: send a command, read whole replies (RFC 959
// §4.2 via ReplyParser), log the dialogue. It knows nothing of transfers; Session builds on it.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <spdlog/logger.h>

#include "client/session/control_channel.hpp"
#include "protocol/control/reply_parser.hpp"

namespace gridftp::client {

using protocol::control::ParsedReply;

// Error code for a server reply that was not the one we needed (a 4xx/5xx, or a 2xx where a 1xx
// was due). The reply text itself is kept in ControlConnection::last_failure().
std::error_code rejected_reply_error();

class ControlConnection {
 public:
  // `label` names the server in logs and messages ("src ftp://127.0.0.1:5811").
  ControlConnection(std::unique_ptr<ControlChannel> channel, std::string label,
                    std::shared_ptr<spdlog::logger> log);

  // Sends one command line. The dialogue goes to the log at debug level, PASS masked. A command
  // already sent ahead (send_ahead) is not sent again: its reply is the next one read_reply()
  // returns. Sent-ahead commands before it that nobody claims have their replies read and
  // dropped.
  Result<void> send(std::string_view command);
  // Reads the next complete reply, whatever its code, waiting at most `timeout`. The replies of
  // commands sent unanswered (send_unanswered) come first and are checked on the way: a refusal
  // fails this read with rejected_reply_error(), last_failure() naming that command.
  // Errors: Errc::BadReply / Errc::LineTooLong from the parser, std::errc::connection_reset
  // when the server closes mid-reply or before one, timeouts and socket errors.
  Result<ParsedReply> read_reply(Clock::duration timeout);

  // Pipelining (RFC 959 §4.2 lets a client send before a reply; servers answer in order): each
  // round trip saved is a whole RTT on a long path (docs/WIRE.md §1.7). Both may only be called
  // when every reply to a plainly sent command has been read.
  // Sends `command` now, before the reply the caller waits for (the greeting, the previous
  // command's): the caller's later send() or command() of the same text reads its reply.
  Result<void> send_ahead(std::string_view command);
  // Sends a command whose reply only says yes or no (TYPE I, SETNETSTACK, DCAU, REST): it is
  // read and checked against `expected_class` by the next read_reply(), so the command rides in
  // one flight with the next one that needs an answer. `expected_class` 0 accepts any reply.
  Result<void> send_unanswered(std::string_view command, int expected_class);
  // The same with the reply judged by `check`, which returns the error to fail with (and may
  // record the failure with note_failure) or keeps what the reply says.
  using ReplyCheck = std::function<Result<void>(const ParsedReply&)>;
  Result<void> send_unanswered(std::string_view command, ReplyCheck check);
  // Reads and checks the replies of every unanswered command sent so far.
  Result<void> read_unanswered();
  // After an unanswered command's refusal the connection is out of step with its caller: every
  // later read fails with that refusal's error, and the session is dropped (SessionPool).
  // send() then read_reply() with the command timeout.
  Result<ParsedReply> command(std::string_view command);
  // Reads one reply with the command timeout and fails with rejected_reply_error() unless its
  // first digit is `expected_class` (2 for 2xx, 3 for 3xx, …).
  Result<ParsedReply> expect_reply(int expected_class);
  // command() + the same check; the command goes into last_failure() on failure.
  Result<ParsedReply> command_expecting(std::string_view command, int expected_class);
  // Records `reply` as the reason for the current failure. `transfer_began`: it ended a transfer
  // the server had started (its 1xx came), so it reports a broken transfer, not a refusal.
  void note_failure(std::string_view command, const ParsedReply& reply,
                    bool transfer_began = false);

  // "RETR /x:\n    550 No such file" for the last unexpected reply, one reply line per line, or
  // "RETR /x: no reply (…)" when the connection failed; empty if none.
  const std::string& last_failure() const { return last_failure_; }
  // The code of the reply behind last_failure() when that reply refused a command; nullopt when
  // there was no reply at all, or when it ended a transfer already begun: Globus reports a
  // dropped data connection as "500 Command failed" after its 150, and -rst must retry that.
  std::optional<int> last_failure_code() const { return last_failure_code_; }
  void clear_failure() {
    last_failure_.clear();
    last_failure_code_.reset();
  }
  const std::string& label() const { return label_; }
  // Tells the user something worth knowing that is not a failure ("<label>: <text>" on the log
  // at warning level, which gridcp shows unless -q).
  void warn(std::string_view text);
  ControlChannel& channel() { return *channel_; }
  const ControlChannel& channel() const { return *channel_; }
  void set_command_timeout(Clock::duration timeout) { command_timeout_ = timeout; }
  Clock::duration command_timeout() const { return command_timeout_; }
  // Sends QUIT and closes without waiting for the 221, ignoring failures.
  void quit();

 private:
  // A command on the wire whose reply is still to come, in the order sent.
  struct InFlight {
    std::string command;  // as logged (secrets masked)
    std::string sent;     // as sent, to match a later send()
    enum class Kind { Ahead, Claimed, Checked } kind;
    int expected_class = 0;  // Checked: the reply class it needs, 0 any
    ReplyCheck check;        // Checked: judges the reply instead of expected_class
  };
  // Writes `command` and queues it in in_flight_ as `kind` (send_ahead, send_unanswered).
  Result<void> send_tracked(std::string_view command, InFlight::Kind kind, int expected_class,
                            ReplyCheck check);
  Result<ParsedReply> read_next_reply(Clock::duration timeout);
  // Reads the replies of the checked (and dropped) commands at the front of in_flight_.
  Result<void> settle_unanswered(Clock::time_point deadline);

  std::unique_ptr<ControlChannel> channel_;
  std::string label_;
  std::shared_ptr<spdlog::logger> log_;
  protocol::control::ReplyParser parser_;
  std::string pending_;                      // received bytes the parser has not consumed yet
  std::string last_command_ = "(greeting)";  // what the next reply answers
  std::string last_failure_;
  std::optional<int> last_failure_code_;
  Clock::duration command_timeout_ = std::chrono::seconds(60);
  std::deque<InFlight> in_flight_;
  std::error_code broken_;  // an unanswered command's refusal, returned by every later read
};

}  // namespace gridftp::client
