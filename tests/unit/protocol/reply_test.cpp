#include "protocol/control/reply.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/control/reply_codes.hpp"

using gridftp::protocol::control::format_reply;
using gridftp::protocol::control::make_reply;
using gridftp::protocol::control::Reply;

namespace {

// Splits wire text into lines at CRLF; checks there is no stray CR or LF anywhere else.
std::vector<std::string> wire_lines(const std::string& wire) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < wire.size()) {
    const auto end = wire.find("\r\n", start);
    if (end == std::string::npos) {
      lines.push_back(wire.substr(start));  // unterminated tail: a test failure below
      break;
    }
    lines.push_back(wire.substr(start, end - start));
    start = end + 2;
  }
  return lines;
}

}  // namespace

TEST_CASE("format_reply writes a single-line reply byte-exact", "[control][reply]") {
  CHECK(format_reply(make_reply(200, "Command okay.")) == "200 Command okay.\r\n");
  CHECK(format_reply(make_reply(gridftp::protocol::control::reply_code::kServiceReady,
                                "gridftpd ready.")) == "220 gridftpd ready.\r\n");
}

TEST_CASE("format_reply writes a single-line reply with empty text", "[control][reply]") {
  CHECK(format_reply(make_reply(200, "")) == "200 \r\n");
}

TEST_CASE("format_reply of a reply with no lines still writes one well-formed line",
          "[control][reply]") {
  CHECK(format_reply(Reply{226, {}}) == "226 \r\n");
}

TEST_CASE("format_reply writes a multi-line reply byte-exact", "[control][reply]") {
  const Reply reply{211, {"Extensions supported", " MDTM", " SIZE", "End."}};
  CHECK(format_reply(reply) == "211-Extensions supported\r\n MDTM\r\n SIZE\r\n211 End.\r\n");
}

TEST_CASE("format_reply writes a two-line reply with no middle lines", "[control][reply]") {
  CHECK(format_reply(Reply{214, {"Help follows", "Help OK."}}) ==
        "214-Help follows\r\n214 Help OK.\r\n");
}

TEST_CASE("format_reply indents a continuation line that would read as the end line",
          "[control][reply]") {
  const std::string looks_final = GENERATE(std::string("123 fake end"), std::string("211 End."),
                                           std::string("000 "), std::string("999 x"));
  const Reply reply{211, {"Status", looks_final, "End."}};
  CHECK(format_reply(reply) == "211-Status\r\n " + looks_final + "\r\n211 End.\r\n");
}

TEST_CASE("format_reply leaves continuation lines alone that cannot end the reply",
          "[control][reply]") {
  const std::string harmless =
      GENERATE(std::string("123-dash"), std::string("12 short"), std::string("123"),
               std::string("abc def"), std::string("1a3 x"), std::string(""));
  const Reply reply{211, {"Status", harmless, "End."}};
  CHECK(format_reply(reply) == "211-Status\r\n" + harmless + "\r\n211 End.\r\n");
}

TEST_CASE("format_reply: CR or LF inside single-line text cannot forge a line",
          "[control][reply]") {
  const std::string text =
      GENERATE(std::string("a\r\n230 Logged in."), std::string("x\n230 y"), std::string("x\r230 y"),
               std::string("\r\n"), std::string("name\r\n\r\n"));
  const auto wire = format_reply(make_reply(550, text));
  const auto lines = wire_lines(wire);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("550 ", 0) == 0);
  CHECK(lines[0].find('\r') == std::string::npos);
  CHECK(lines[0].find('\n') == std::string::npos);
  CHECK(wire.size() == 4 + text.size() + 2);  // each break byte became one space
}

TEST_CASE("format_reply: CR or LF in any line of a multi-line reply cannot forge a line",
          "[control][reply]") {
  const Reply reply{250, {"first\r\n250 forged", "mid\n250 forged", "last\r250 x"}};
  const auto wire = format_reply(reply);
  const auto lines = wire_lines(wire);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "250-first  250 forged");
  CHECK(lines[1] == "mid 250 forged");
  CHECK(lines[2] == "250 last 250 x");
}

TEST_CASE("format_reply: a middle line that becomes an end line after removing a CR is indented",
          "[control][reply]") {
  // "226\r..." has no space at index 3 until the CR is replaced; the check must see the result.
  const Reply reply{211, {"Status", "226\rdone", "End."}};
  CHECK(format_reply(reply) == "211-Status\r\n 226 done\r\n211 End.\r\n");
}

TEST_CASE("format_reply always writes a three-digit code", "[control][reply]") {
  auto [code, prefix] = GENERATE(table<int, std::string>({
      {100, "100"},
      {999, "999"},
      {5, "005"},
      {0, "000"},
  }));
  CHECK(format_reply(make_reply(code, "t")) == prefix + " t\r\n");
}

TEST_CASE("format_reply never writes a non-digit code byte for out-of-range codes",
          "[control][reply]") {
  const int code = GENERATE(-1, -550, 1000, 1550, 2147483647);
  const auto wire = format_reply(make_reply(code, "t"));
  REQUIRE(wire.size() >= 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(wire[static_cast<std::size_t>(i)] >= '0');
    CHECK(wire[static_cast<std::size_t>(i)] <= '9');
  }
  CHECK(wire.substr(3) == " t\r\n");
}

TEST_CASE("A site message becomes a multi-line reply ending in End.", "[control][reply]") {
  using gridftp::protocol::control::make_message_reply;
  CHECK(format_reply(make_message_reply(220, {}, "gridftpd ready.")) == "220 gridftpd ready.\r\n");
  CHECK(format_reply(make_message_reply(220, {}, "")) == "220 \r\n");
  CHECK(format_reply(make_message_reply(220, {}, "line one\r\nline two\n")) ==
        "220-line one\r\nline two\r\n220 End.\r\n");
  CHECK(format_reply(make_message_reply(230, {"User u logged in."}, "")) ==
        "230 User u logged in.\r\n");
  CHECK(format_reply(make_message_reply(230, {"User u logged in."}, "welcome")) ==
        "230-User u logged in.\r\nwelcome\r\n230 End.\r\n");
}
