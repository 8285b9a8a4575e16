// Client-side, incremental parser for FTP replies (RFC 959 §4.2, docs/WIRE.md §1.1). It does no
// I/O: the caller feeds received bytes and takes complete replies. Not the server's reply formatter
// (protocol/control/reply.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/control/reply.hpp"
#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

// One complete reply. `lines` hold the raw text of each line without its line ending, so the
// first line still starts with "DDD-" or "DDD " and continuation lines are kept verbatim.
struct ParsedReply {
  int code = 0;
  std::vector<std::string> lines;

  // Text of the first line after "DDD-"/"DDD ": "Entering Passive Mode (...)".
  std::string_view first_text() const;
  bool is_preliminary() const { return code >= 100 && code < 200; }
  bool is_positive() const { return code >= 100 && code < 400; }
};

// `reply` as the server formatter takes it, to pass a reply on as its server wrote it (a
// frontend relaying its mover's): the code comes off the first line ("DDD-"/"DDD ") and off the
// last line of a multi-line reply; continuation lines stay as they are.
Reply reply_as_written(const ParsedReply& reply);

// Bound on one reply (all lines together). Globus' largest routine reply, FEAT, is under 1 KiB;
// the cap stops a hostile server from growing our memory without limit.
inline constexpr std::size_t kMaxReplyBytes = std::size_t{64} * 1024;

class ReplyParser {
 public:
  // Consumes bytes up to and including the end of the next complete reply and returns how many
  // bytes it used; the caller passes the rest again after take_reply(). Lines end in LF with an
  // optional CR before it. Errors (sticky; the connection must be dropped):
  //   Errc::BadReply     a line that should start a reply is not "DDD " or "DDD-" with DDD in
  //                      100..599, or bytes are fed while a complete reply is waiting;
  //   Errc::LineTooLong  the reply grew past kMaxReplyBytes.
  Result<std::size_t> feed(std::string_view bytes);

  bool has_reply() const { return complete_; }
  // Hands over the complete reply and resets for the next one. Precondition: has_reply().
  ParsedReply take_reply();

 private:
  Result<void> finish_line();

  std::string partial_line_;
  ParsedReply reply_;
  std::size_t reply_bytes_ = 0;
  bool complete_ = false;
  std::error_code failed_;
};

}  // namespace gridftp::protocol::control
