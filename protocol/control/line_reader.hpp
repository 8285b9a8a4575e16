// Incremental control-channel line framing (RFC 959 §4.1.1 CRLF lines) with a length cap and
// Telnet IAC stripping (RFC 854), so ABOR sent as "IAC IP IAC DM ABOR" parses. No I/O.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace gridftp::protocol::control {

struct LineEvent {
  std::string line;       // without CR LF; empty when too_long
  bool too_long = false;  // the line exceeded the cap and was discarded up to its LF
};

class LineReader {
 public:
  explicit LineReader(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  // Consumes all of `bytes`, appending one event per completed line. State (a partial line, a
  // pending IAC sequence, an overlong line being discarded) carries over to the next call.
  void feed(std::span<const char> bytes, std::vector<LineEvent>& out);

  std::size_t buffered_bytes() const { return partial_.size(); }

 private:
  enum class Telnet { Data, AfterIac, AfterOption };
  void accept_byte(char c, std::vector<LineEvent>& out);

  std::size_t max_line_bytes_;
  std::string partial_;
  bool discarding_ = false;
  Telnet telnet_ = Telnet::Data;
};

}  // namespace gridftp::protocol::control
