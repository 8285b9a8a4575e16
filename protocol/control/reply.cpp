#include "protocol/control/reply.hpp"

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
