#include "protocol/control/reply_parser.hpp"

#include <algorithm>
#include <utility>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {
namespace {

constexpr std::size_t kCodeDigits = 3;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Returns the code if `line` begins with three digits followed by `separator`, else 0.
int code_with_separator(std::string_view line, char separator) {
  if (line.size() < kCodeDigits + 1 || line[kCodeDigits] != separator) {
    return 0;
  }
  int code = 0;
  for (std::size_t i = 0; i < kCodeDigits; ++i) {
    if (!is_digit(line[i])) {
      return 0;
    }
    code = code * 10 + (line[i] - '0');
  }
  return code;
}

// RFC 959 allows "DDD" alone as a single-line reply with empty text; treat it like "DDD ".
bool is_bare_code(std::string_view line) {
  return line.size() == kCodeDigits && is_digit(line[0]) && is_digit(line[1]) && is_digit(line[2]);
}

}  // namespace

std::string_view ParsedReply::first_text() const {
  if (lines.empty() || lines.front().size() <= kCodeDigits + 1) {
    return {};
  }
  return std::string_view(lines.front()).substr(kCodeDigits + 1);
}

Reply reply_as_written(const ParsedReply& reply) {
  Reply out{reply.code, reply.lines};
  if (out.lines.empty()) out.lines.emplace_back();
  const auto without_code = [](std::string& line) {
    line.erase(0, std::min(line.size(), kCodeDigits + 1));
  };
  without_code(out.lines.front());
  if (out.lines.size() > 1) {
    auto& last = out.lines.back();
    const auto code = std::to_string(reply.code);
    if (last.size() >= kCodeDigits + 1 && last.compare(0, kCodeDigits, code) == 0 &&
        last[kCodeDigits] == ' ') {
      without_code(last);
    }
  }
  return out;
}

Result<std::size_t> ReplyParser::feed(std::string_view bytes) {
  if (failed_) {
    return make_error(failed_);
  }
  if (complete_) {
    failed_ = make_error_code(Errc::BadReply);
    return make_error(failed_);
  }
  std::size_t used = 0;
  while (used < bytes.size() && !complete_) {
    const auto rest = bytes.substr(used);
    const auto newline = rest.find('\n');
    const auto take = newline == std::string_view::npos ? rest.size() : newline + 1;
    reply_bytes_ += take;
    if (reply_bytes_ > kMaxReplyBytes) {
      failed_ = make_error_code(Errc::LineTooLong);
      return make_error(failed_);
    }
    partial_line_.append(rest.substr(0, newline == std::string_view::npos ? take : newline));
    used += take;
    if (newline == std::string_view::npos) {
      break;
    }
    if (auto finished = finish_line(); !finished) {
      failed_ = finished.error();
      return make_error(failed_);
    }
  }
  return used;
}

Result<void> ReplyParser::finish_line() {
  std::string line = std::move(partial_line_);
  partial_line_.clear();
  if (!line.empty() && line.back() == '\r') {
    line.pop_back();
  }
  if (reply_.lines.empty()) {
    if (is_bare_code(line)) {
      line.push_back(' ');
    }
    const int single = code_with_separator(line, ' ');
    const int multi = code_with_separator(line, '-');
    const int code = single != 0 ? single : multi;
    if (code < 100 || code > 599) {
      return make_error(make_error_code(Errc::BadReply));
    }
    reply_.code = code;
    reply_.lines.push_back(std::move(line));
    complete_ = single != 0;
    return {};
  }
  // RFC 959 §4.2: only "DDD " with the opening code ends a multi-line reply; continuation lines
  // may themselves start with digits (" 127,0,0,1,…" or even "200-…").
  complete_ = code_with_separator(line, ' ') == reply_.code ||
              (is_bare_code(line) && code_with_separator(line + ' ', ' ') == reply_.code);
  reply_.lines.push_back(std::move(line));
  return {};
}

ParsedReply ReplyParser::take_reply() {
  ParsedReply out = std::move(reply_);
  reply_ = ParsedReply{};
  reply_bytes_ = 0;
  complete_ = false;
  return out;
}

}  // namespace gridftp::protocol::control
