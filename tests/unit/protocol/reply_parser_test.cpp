#include "protocol/control/reply_parser.hpp"

#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::protocol::Errc;
using gridftp::protocol::control::format_reply;
using gridftp::protocol::control::kMaxReplyBytes;
using gridftp::protocol::control::ParsedReply;
using gridftp::protocol::control::reply_as_written;
using gridftp::protocol::control::ReplyParser;

namespace {

// Feeds every chunk in order and collects all complete replies; stops at the first error.
struct FeedOutcome {
  std::vector<ParsedReply> replies;
  std::error_code error;
};

FeedOutcome feed_all(ReplyParser& parser, const std::vector<std::string_view>& chunks) {
  FeedOutcome outcome;
  for (auto chunk : chunks) {
    while (!chunk.empty()) {
      auto used = parser.feed(chunk);
      if (!used) {
        outcome.error = used.error();
        return outcome;
      }
      chunk.remove_prefix(*used);
      if (parser.has_reply()) {
        outcome.replies.push_back(parser.take_reply());
      }
    }
  }
  return outcome;
}

// Globus' FEAT reply, shortened; docs/WIRE.md §1.3.
constexpr std::string_view kFeat =
    "211-Extensions supported\r\n"
    " CKSM MD5:10;ADLER32:10;SHA1:10;SHA256:11;SHA512:12;\r\n"
    " MLST Type*;Size*;Modify*;\r\n"
    " PASV AllowDelayed;\r\n"
    "211 End.\r\n";

}  // namespace

TEST_CASE("ReplyParser reads a single-line reply", "[control]") {
  ReplyParser parser;
  const auto outcome = feed_all(parser, {"227 Entering Passive Mode (127,0,0,1,206,57)\r\n"});
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].code == 227);
  CHECK(outcome.replies[0].first_text() == "Entering Passive Mode (127,0,0,1,206,57)");
  CHECK(outcome.replies[0].lines.size() == 1);
}

TEST_CASE("ReplyParser reads a multi-line reply split at any byte", "[control]") {
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, static_cast<int>(kFeat.size()) + 1)));
  ReplyParser parser;
  const auto outcome = feed_all(parser, {kFeat.substr(0, cut), kFeat.substr(cut)});
  REQUIRE(!outcome.error);
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].code == 211);
  REQUIRE(outcome.replies[0].lines.size() == 5);
  CHECK(outcome.replies[0].lines[3] == " PASV AllowDelayed;");
  CHECK(outcome.replies[0].lines[4] == "211 End.");
}

TEST_CASE("ReplyParser reads bytes fed one at a time", "[control]") {
  ReplyParser parser;
  std::vector<std::string_view> chunks;
  for (std::size_t i = 0; i < kFeat.size(); ++i) {
    chunks.push_back(kFeat.substr(i, 1));
  }
  const auto outcome = feed_all(parser, chunks);
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].lines.size() == 5);
}

TEST_CASE("ReplyParser ends a multi-line reply only at the same code with a space", "[control]") {
  ReplyParser parser;
  const auto outcome = feed_all(parser, {"229-Entering Striped Passive Mode.\r\n"
                                         " 127,0,0,1,210,115\r\n"
                                         "200 not the end\r\n"
                                         "229-still not\r\n"
                                         "  |2|::1|43927|\r\n"
                                         "229 End\r\n"});
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].code == 229);
  CHECK(outcome.replies[0].lines.size() == 6);
  CHECK(outcome.replies[0].lines.back() == "229 End");
}

TEST_CASE("ReplyParser separates back-to-back replies", "[control]") {
  ReplyParser parser;
  const auto outcome = feed_all(parser, {"150 Beginning transfer.\r\n"
                                         "112-Perf Marker\r\n Stripe Bytes Transferred: 0\r\n"
                                         "112 End.\r\n226 Transfer Complete.\r\n"});
  REQUIRE(outcome.replies.size() == 3);
  CHECK(outcome.replies[0].code == 150);
  CHECK(outcome.replies[0].is_preliminary());
  CHECK(outcome.replies[1].code == 112);
  CHECK(outcome.replies[2].code == 226);
}

TEST_CASE("ReplyParser stops after one complete reply", "[control]") {
  ReplyParser parser;
  const std::string_view two = "200 a\r\n200 b\r\n";
  auto used = parser.feed(two);
  REQUIRE(used);
  CHECK(*used == 7);
  CHECK(parser.has_reply());
}

TEST_CASE("ReplyParser accepts bare LF line endings and a bare code", "[control]") {
  ReplyParser parser;
  const auto outcome = feed_all(parser, {"220 ready\n230\n"});
  REQUIRE(outcome.replies.size() == 2);
  CHECK(outcome.replies[1].code == 230);
  CHECK(outcome.replies[1].first_text().empty());
}

TEST_CASE("ReplyParser rejects a malformed first line", "[control]") {
  const std::string_view bad =
      GENERATE(as<std::string_view>{}, "hello\r\n", "22 short\r\n", "2x0 x\r\n", "099 low\r\n",
               "600 high\r\n", "220_x\r\n", "\r\n", " 220 indented\r\n");
  ReplyParser parser;
  const auto outcome = feed_all(parser, {bad});
  CHECK(outcome.error == Errc::BadReply);
  CHECK(outcome.replies.empty());
  CHECK_FALSE(parser.feed("220 ok\r\n"));  // the error is sticky
}

TEST_CASE("ReplyParser caps the size of one reply", "[control]") {
  ReplyParser parser;
  std::string big = "211-start\r\n";
  while (big.size() <= kMaxReplyBytes) {
    big += " filler filler filler filler filler filler filler\r\n";
  }
  const auto outcome = feed_all(parser, {big});
  CHECK(outcome.error == Errc::LineTooLong);
}

TEST_CASE("ReplyParser caps a line that never ends", "[control]") {
  ReplyParser parser;
  const std::string endless(kMaxReplyBytes + 1, 'x');
  const auto outcome = feed_all(parser, {"220", endless});
  CHECK(outcome.error == Errc::LineTooLong);
}

TEST_CASE("ReplyParser accepts a reply exactly at the cap", "[control]") {
  ReplyParser parser;
  std::string exact = "220 ";
  exact.append(kMaxReplyBytes - exact.size() - 2, 'x');
  exact += "\r\n";
  const auto outcome = feed_all(parser, {exact});
  CHECK(!outcome.error);
  CHECK(outcome.replies.size() == 1);
}

TEST_CASE("A parsed reply is passed on as its server wrote it", "[control][reply_parser]") {
  // What a frontend relays from its mover: formatting it again gives the same bytes.
  const std::string single = "226 Transfer Complete.\r\n";
  const std::string perf =
      "112-Perf Marker\r\n Timestamp:  1795311512.3\r\n Stripe Index: 0\r\n"
      " Stripe Bytes Transferred: 3000000\r\n Total Stripe Count: 1\r\n112 End.\r\n";
  const std::string wire = GENERATE_COPY(single, perf);
  ReplyParser parser;
  REQUIRE(parser.feed(wire));
  REQUIRE(parser.has_reply());
  const auto parsed = parser.take_reply();
  const auto written = reply_as_written(parsed);
  CHECK(written.code == parsed.code);
  CHECK(format_reply(written) == wire);
}

TEST_CASE("reply_as_written keeps a last line that does not carry the code",
          "[control][reply_parser]") {
  ParsedReply odd{211, {"211-Features:", " MDTM", "211 End"}};
  CHECK(reply_as_written(odd).lines == std::vector<std::string>{"Features:", " MDTM", "End"});
  ParsedReply bare{550, {"550"}};
  CHECK(reply_as_written(bare).lines == std::vector<std::string>{""});
}
