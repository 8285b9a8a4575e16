#include "protocol/control/reply.hpp"

#include <algorithm>
#include <cctype>

namespace gridftp::protocol::control {
namespace {

bool looks_like_end_line(const std::string& line) {
  return line.size() >= 4 && std::isdigit(static_cast<unsigned char>(line[0])) &&
         std::isdigit(static_cast<unsigned char>(line[1])) &&
         std::isdigit(static_cast<unsigned char>(line[2])) && line[3] == ' ';
}

// Reply text must never smuggle a line break: a file name with CR or LF would forge a reply.
std::string without_line_breaks(const std::string& text) {
  std::string clean = text;
  for (char& c : clean) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return clean;
}

}  // namespace

Reply make_message_reply(int code, std::vector<std::string> head, std::string_view message) {
  Reply reply{code, std::move(head)};
  if (!message.empty() && message.back() == '\n') message.remove_suffix(1);
  std::size_t start = 0;
  while (!message.empty() && start <= message.size()) {
    const auto end = std::min(message.find('\n', start), message.size());
    auto line = message.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    reply.lines.emplace_back(line);
    start = end + 1;
  }
  if (reply.lines.empty()) reply.lines.emplace_back();
  if (reply.lines.size() > 1) reply.lines.emplace_back("End.");
  return reply;
}

std::string format_reply(const Reply& reply) {
  const int value = reply.code < 0 ? 0 : reply.code % 1000;
  const std::string code{static_cast<char>('0' + value / 100),
                         static_cast<char>('0' + value / 10 % 10),
                         static_cast<char>('0' + value % 10)};
  const std::string& first = reply.lines.empty() ? std::string() : reply.lines.front();
  if (reply.lines.size() <= 1) return std::string(code) + " " + without_line_breaks(first) + "\r\n";
  std::string out = std::string(code) + "-" + without_line_breaks(first) + "\r\n";
  for (std::size_t i = 1; i + 1 < reply.lines.size(); ++i) {
    const auto line = without_line_breaks(reply.lines[i]);
    if (looks_like_end_line(line)) out += ' ';
    out += line + "\r\n";
  }
  out += std::string(code) + " " + without_line_breaks(reply.lines.back()) + "\r\n";
  return out;
}

}  // namespace gridftp::protocol::control
