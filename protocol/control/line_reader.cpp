#include "protocol/control/line_reader.hpp"

namespace gridftp::protocol::control {
namespace {
constexpr unsigned char kIac = 255;
constexpr unsigned char kWill = 251;
constexpr unsigned char kDont = 254;
}  // namespace

void LineReader::feed(std::span<const char> bytes, std::vector<LineEvent>& out) {
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    switch (telnet_) {
      case Telnet::AfterIac:
        // IAC IAC is a literal 0xFF; WILL/WONT/DO/DONT carry one option byte; others stand alone.
        telnet_ = (u >= kWill && u <= kDont) ? Telnet::AfterOption : Telnet::Data;
        if (u == kIac) accept_byte(c, out);
        continue;
      case Telnet::AfterOption:
        telnet_ = Telnet::Data;
        continue;
      case Telnet::Data:
        break;
    }
    if (u == kIac) {
      telnet_ = Telnet::AfterIac;
      continue;
    }
    accept_byte(c, out);
  }
}

void LineReader::accept_byte(char c, std::vector<LineEvent>& out) {
  if (c == '\n') {
    if (discarding_) {
      out.push_back({{}, true});
      discarding_ = false;
    } else {
      if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
      out.push_back({std::move(partial_), false});
    }
    partial_.clear();
    return;
  }
  if (discarding_) return;
  // The cap counts the terminating LF: everything before it may use max_line_bytes - 1 bytes.
  if (partial_.size() + 1 >= max_line_bytes_) {
    discarding_ = true;
    partial_.clear();
    partial_.shrink_to_fit();
    return;
  }
  partial_.push_back(c);
}

}  // namespace gridftp::protocol::control
