#include "client/session/control_connection.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gridftp::client {
namespace {

constexpr std::size_t kReadChunkBytes = 4096;

// Passwords and GSI tokens never reach logs (style: secrets stay secret).
std::string_view loggable(std::string_view command) {
  if (command.size() >= 5 && (command.substr(0, 5) == "PASS " || command.substr(0, 5) == "pass ")) {
    return "PASS ****";
  }
  if (command.size() >= 5 && command.substr(0, 5) == "ADAT ") {
    return "ADAT ****";
  }
  return command;
}

// "335 ADAT=<token>" → "335 ADAT=****".
std::string loggable_reply_line(std::string_view line) {
  const auto token = line.find("ADAT=");
  if (token == std::string_view::npos) {
    return std::string(line);
  }
  return std::string(line.substr(0, token)) + "ADAT=****";
}

std::string join_lines(const ParsedReply& reply) {
  std::string out;
  for (const auto& line : reply.lines) {
    if (!out.empty()) {
      out += "\n    ";
    }
    out += line;
  }
  return out;
}

class ClientErrorCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridcp"; }
  std::string message(int) const override { return "server refused the request"; }
};

}  // namespace

std::error_code rejected_reply_error() {
  static const ClientErrorCategory category;
  return {1, category};
}

ControlConnection::ControlConnection(std::unique_ptr<ControlChannel> channel, std::string label,
                                     std::shared_ptr<spdlog::logger> log)
    : channel_(std::move(channel)), label_(std::move(label)), log_(std::move(log)) {}

Result<void> ControlConnection::send(std::string_view command) {
  // Sent ahead: claim the first unclaimed copy; the sent-ahead commands before it (or all of
  // them, when it is not there) were not wanted after all, and their replies are dropped.
  auto ahead = std::find_if(in_flight_.begin(), in_flight_.end(), [&](const InFlight& entry) {
    return entry.kind == InFlight::Kind::Ahead && entry.sent == command;
  });
  for (auto entry = in_flight_.begin(); entry != ahead; ++entry) {
    if (entry->kind == InFlight::Kind::Ahead) {
      entry->kind = InFlight::Kind::Checked;
      entry->expected_class = 0;
    }
  }
  if (ahead != in_flight_.end()) {
    ahead->kind = InFlight::Kind::Claimed;
    last_command_ = ahead->command;
    return {};
  }
  last_command_ = std::string(loggable(command));
  log_->debug("debug: {} C: {}", label_, last_command_);
  return channel_->write_line(command);
}

Result<void> ControlConnection::send_tracked(std::string_view command, InFlight::Kind kind,
                                             int expected_class, ReplyCheck check) {
  const std::string logged(loggable(command));
  log_->debug("debug: {} C: {}", label_, logged);
  if (auto sent = channel_->write_line(command); !sent) {
    return sent;
  }
  in_flight_.push_back(
      InFlight{logged, std::string(command), kind, expected_class, std::move(check)});
  return {};
}

Result<void> ControlConnection::send_ahead(std::string_view command) {
  return send_tracked(command, InFlight::Kind::Ahead, 0, {});
}

Result<void> ControlConnection::send_unanswered(std::string_view command, int expected_class) {
  return send_tracked(command, InFlight::Kind::Checked, expected_class, {});
}

Result<void> ControlConnection::send_unanswered(std::string_view command, ReplyCheck check) {
  return send_tracked(command, InFlight::Kind::Checked, 0, std::move(check));
}

Result<void> ControlConnection::read_unanswered() {
  return settle_unanswered(Clock::now() + command_timeout_);
}

Result<void> ControlConnection::settle_unanswered(Clock::time_point deadline) {
  if (broken_) {
    return make_error(broken_);
  }
  // Each reply read here names its own command in failures; the awaited one's name comes back.
  const auto awaited = last_command_;
  while (!in_flight_.empty() && in_flight_.front().kind == InFlight::Kind::Checked) {
    const auto entry = std::move(in_flight_.front());
    in_flight_.pop_front();
    last_command_ = entry.command;
    const auto left = deadline - Clock::now();
    auto reply = read_next_reply(left > Clock::duration::zero() ? left : Clock::duration::zero());
    if (!reply) {
      return make_error(reply.error());
    }
    Result<void> judged;
    if (entry.check) {
      judged = entry.check(*reply);
    } else if (entry.expected_class != 0 && reply->code / 100 != entry.expected_class) {
      note_failure(entry.command, *reply);
      judged = make_error(rejected_reply_error());
    }
    if (!judged) {
      broken_ = judged.error();
      last_command_ = awaited;
      return judged;
    }
  }
  last_command_ = awaited;
  return {};
}

Result<ParsedReply> ControlConnection::read_reply(Clock::duration timeout) {
  const auto deadline = Clock::now() + timeout;
  if (broken_) {
    return make_error(broken_);
  }
  if (!in_flight_.empty()) {
    if (auto settled = settle_unanswered(deadline); !settled) {
      return make_error(settled.error());
    }
    if (!in_flight_.empty() && in_flight_.front().kind == InFlight::Kind::Claimed) {
      last_command_ = in_flight_.front().command;
      in_flight_.pop_front();
    }
  }
  const auto left = deadline - Clock::now();
  return read_next_reply(left > Clock::duration::zero() ? left : Clock::duration::zero());
}

Result<ParsedReply> ControlConnection::read_next_reply(Clock::duration timeout) {
  std::array<char, kReadChunkBytes> buffer{};
  const auto deadline = Clock::now() + timeout;
  while (!parser_.has_reply()) {
    if (!pending_.empty()) {
      auto used = parser_.feed(pending_);
      if (!used) {
        last_failure_ = last_command_ + ": unreadable reply (" + used.error().message() + ")";
        last_failure_code_.reset();
        return make_error(used.error());
      }
      pending_.erase(0, *used);
      continue;
    }
    const auto left = deadline - Clock::now();
    auto count = channel_->read_some(
        buffer, left > Clock::duration::zero() ? left : Clock::duration::zero());
    if (!count || *count == 0) {
      const auto error = count ? make_error_code(std::errc::connection_reset) : count.error();
      last_failure_ = last_command_ + ": no reply (" + error.message() + ")";
      last_failure_code_.reset();
      return make_error(error);
    }
    pending_.append(buffer.data(), *count);
  }
  auto reply = parser_.take_reply();
  for (const auto& line : reply.lines) {
    log_->debug("debug: {} S: {}", label_, loggable_reply_line(line));
  }
  return reply;
}

Result<ParsedReply> ControlConnection::command(std::string_view command) {
  if (auto sent = send(command); !sent) {
    return make_error(sent.error());
  }
  return read_reply(command_timeout_);
}

Result<ParsedReply> ControlConnection::expect_reply(int expected_class) {
  auto reply = read_reply(command_timeout_);
  if (!reply) {
    return reply;
  }
  if (reply->code / 100 != expected_class) {
    note_failure(last_command_, *reply);
    return make_error(rejected_reply_error());
  }
  return reply;
}

Result<ParsedReply> ControlConnection::command_expecting(std::string_view command,
                                                         int expected_class) {
  if (auto sent = send(command); !sent) {
    return make_error(sent.error());
  }
  return expect_reply(expected_class);
}

void ControlConnection::note_failure(std::string_view command, const ParsedReply& reply,
                                     bool transfer_began) {
  last_failure_ = std::string(loggable(command)) + ":\n    " + join_lines(reply);
  last_failure_code_ = transfer_began ? std::nullopt : std::optional<int>(reply.code);
}

void ControlConnection::warn(std::string_view text) {
  log_->warn("gridcp: warning: {}: {}", label_, text);
}

void ControlConnection::quit() {
  // The server closes after its 221 and nothing can follow it: waiting for it would only add a
  // round trip to the end of every command (RFC 959 §4.1.1 asks nothing of the client there).
  (void)send("QUIT");
  channel_->close();
}

}  // namespace gridftp::client
