// Splits what a GSI server sends on a protected control channel into lines (RFC 2228 §4: "631",
// "632", "633" carry one base64 token each, as "632-" on all but the last line of a reply;
// docs/WIRE.md §5.3). Pure: it decodes base64 but does not unwrap TLS; the channel does that in
// order. Lines without a protection code (Globus sends some 530s in the clear) pass through as
// text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

// One line from the server: a TLS token to unwrap, or a clear reply line (with CRLF).
struct ProtectedLine {
  enum class Kind { Token, Clear };
  Kind kind = Kind::Clear;
  std::string bytes;
  friend bool operator==(const ProtectedLine&, const ProtectedLine&) = default;
};

// A 632 line carries a wrapped reply line; tokens of several KB must fit.
inline constexpr std::size_t kMaxProtectedLineBytes = std::size_t{64} * 1024;

class ProtectedReplyReader {
 public:
  // Appends every line completed by `bytes` to `out`, keeping a partial line for the next call.
  // Lines end in LF with an optional CR. Errors (sticky; drop the connection):
  //   Errc::LineTooLong  a line longer than kMaxProtectedLineBytes;
  //   Errc::BadReply     a 631/632/633 line whose token is not base64.
  Result<void> feed(std::string_view bytes, std::vector<ProtectedLine>& out);

 private:
  Result<void> finish_line(std::vector<ProtectedLine>& out);

  std::string partial_;
  std::error_code failed_;
};

}  // namespace gridftp::protocol::control
