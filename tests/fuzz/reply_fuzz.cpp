// Server replies as the client reads them: the reply parser (multi-line replies, the size cap),
// the protected-reply reader (631/632/633 tokens on a GSI control channel), and the texts
// parsed out of replies: PASV/EPSV endpoints, restart and performance markers.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "protocol/control/passive_reply.hpp"
#include "protocol/control/protected_reply_reader.hpp"
#include "protocol/control/reply_parser.hpp"
#include "protocol/restart/markers.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pc = gridftp::protocol::control;

struct ParsedStream {
  std::vector<pc::ParsedReply> replies;
  bool failed = false;
};

// Feeds `bytes` in chunks of at most `chunk` bytes, taking each reply as it completes.
ParsedStream parse_replies(std::string_view bytes, std::size_t chunk) {
  pc::ReplyParser parser;
  ParsedStream out;
  std::string pending;
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    pending.append(bytes.substr(at, chunk));
    while (!pending.empty()) {
      auto used = parser.feed(pending);
      if (!used) {
        out.failed = true;
        return out;
      }
      pending.erase(0, *used);
      if (!parser.has_reply()) break;
      out.replies.push_back(parser.take_reply());
    }
  }
  return out;
}

void parse_reply_texts(const pc::ParsedReply& reply) {
  FUZZ_CHECK(reply.code >= 100 && reply.code <= 599);
  FUZZ_CHECK(!reply.lines.empty());
  (void)gridftp::protocol::restart::parse_range_marker(reply.lines.front());
  (void)gridftp::protocol::restart::parse_perf_marker_bytes(reply.lines);
  (void)pc::parse_pasv_reply(reply.first_text());
  (void)pc::parse_epsv_reply(reply.first_text());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gridftp::fuzz::as_text(data, size);
  const auto whole = parse_replies(bytes, bytes.size() + 1);
  const auto dribbled = parse_replies(bytes, 7);
  // Splitting the stream changes neither the replies nor where it fails.
  FUZZ_CHECK(whole.failed == dribbled.failed);
  FUZZ_CHECK(whole.replies.size() == dribbled.replies.size());
  for (std::size_t i = 0; i < whole.replies.size(); ++i) {
    FUZZ_CHECK(whole.replies[i].code == dribbled.replies[i].code);
    FUZZ_CHECK(whole.replies[i].lines == dribbled.replies[i].lines);
    parse_reply_texts(whole.replies[i]);
  }
  pc::ProtectedReplyReader reader;
  std::vector<pc::ProtectedLine> lines;
  (void)reader.feed(bytes, lines);
  return 0;
}
