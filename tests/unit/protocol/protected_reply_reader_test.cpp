#include "protocol/control/protected_reply_reader.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/base64.hpp"
#include "protocol/core/errors.hpp"

using gridftp::protocol::encode_base64;
using gridftp::protocol::control::kMaxProtectedLineBytes;
using gridftp::protocol::control::ProtectedLine;
using gridftp::protocol::control::ProtectedReplyReader;
using Kind = ProtectedLine::Kind;

namespace {

std::vector<ProtectedLine> feed_all(ProtectedReplyReader& reader,
                                    const std::vector<std::string_view>& pieces) {
  std::vector<ProtectedLine> out;
  for (const auto piece : pieces) {
    REQUIRE(reader.feed(piece, out));
  }
  return out;
}

}  // namespace

TEST_CASE("ProtectedReplyReader decodes a multi-line 632 reply split at any byte", "[gsi]") {
  // docs/WIRE.md §5.3: one token per reply line, "632-" on all but the last.
  const std::string wire = "632-" + encode_base64("tok-one") + "\r\n632-" +
                           encode_base64("tok-two") + "\r\n632 " + encode_base64("tok-3") + "\r\n";
  const auto cut = static_cast<std::size_t>(GENERATE_COPY(range(std::size_t{0}, wire.size())));
  ProtectedReplyReader reader;
  const std::string_view all(wire);
  const auto lines = feed_all(reader, {all.substr(0, cut), all.substr(cut)});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == ProtectedLine{Kind::Token, "tok-one"});
  CHECK(lines[1] == ProtectedLine{Kind::Token, "tok-two"});
  CHECK(lines[2] == ProtectedLine{Kind::Token, "tok-3"});
}

TEST_CASE("ProtectedReplyReader accepts 631 and 633 and bare LF endings", "[gsi]") {
  ProtectedReplyReader reader;
  const auto lines =
      feed_all(reader, {"631 " + encode_base64("mic") + "\n633 " + encode_base64("conf") + "\n"});
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == ProtectedLine{Kind::Token, "mic"});
  CHECK(lines[1] == ProtectedLine{Kind::Token, "conf"});
}

TEST_CASE("ProtectedReplyReader passes clear reply lines through with CRLF", "[gsi]") {
  // Globus answers a failed PASS with an unprotected multi-line 530.
  ProtectedReplyReader reader;
  const auto lines =
      feed_all(reader, {"530-Login incorrect. : globus_gss_assist\r\n530-\n530 End.\r\n"});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == ProtectedLine{Kind::Clear, "530-Login incorrect. : globus_gss_assist\r\n"});
  CHECK(lines[1] == ProtectedLine{Kind::Clear, "530-\r\n"});
  CHECK(lines[2] == ProtectedLine{Kind::Clear, "530 End.\r\n"});
}

TEST_CASE("ProtectedReplyReader keeps a partial line until its end arrives", "[gsi]") {
  ProtectedReplyReader reader;
  std::vector<ProtectedLine> out;
  REQUIRE(reader.feed("632 " + encode_base64("abc"), out));
  CHECK(out.empty());
  REQUIRE(reader.feed("\r\n", out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].bytes == "abc");
}

TEST_CASE("ProtectedReplyReader rejects a token that is not base64", "[gsi]") {
  ProtectedReplyReader reader;
  std::vector<ProtectedLine> out;
  const std::string bad =
      GENERATE(as<std::string>{}, "632 not*base64\r\n", "632 \r\n", "632-abc\r\n");
  const auto fed = reader.feed(bad, out);
  REQUIRE_FALSE(fed);
  CHECK(fed.error() == gridftp::protocol::Errc::BadReply);
  // Sticky: the connection must be dropped.
  CHECK_FALSE(reader.feed("632 " + encode_base64("x") + "\r\n", out));
}

TEST_CASE("ProtectedReplyReader caps the line length", "[gsi]") {
  ProtectedReplyReader reader;
  std::vector<ProtectedLine> out;
  const std::string at_limit(kMaxProtectedLineBytes, 'A');
  CHECK(reader.feed(at_limit, out));
  const auto over = reader.feed("A", out);
  REQUIRE_FALSE(over);
  CHECK(over.error() == gridftp::protocol::Errc::LineTooLong);
}
