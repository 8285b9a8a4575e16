#include "protocol/control/line_reader.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::protocol::control::LineEvent;
using gridftp::protocol::control::LineReader;

namespace {

std::span<const char> bytes_of(std::string_view text) { return {text.data(), text.size()}; }

std::vector<LineEvent> feed_chunks(LineReader& reader,
                                   const std::vector<std::string_view>& chunks) {
  std::vector<LineEvent> events;
  for (const auto chunk : chunks) reader.feed(bytes_of(chunk), events);
  return events;
}

std::vector<LineEvent> feed_one(LineReader& reader, std::string_view text) {
  return feed_chunks(reader, {text});
}

std::vector<LineEvent> feed_bytewise(LineReader& reader, std::string_view text) {
  std::vector<LineEvent> events;
  for (std::size_t i = 0; i < text.size(); ++i) reader.feed(bytes_of(text.substr(i, 1)), events);
  return events;
}

std::string iac(std::initializer_list<unsigned char> codes) {
  std::string out;
  for (const auto code : codes) out.push_back(static_cast<char>(code));
  return out;
}

constexpr unsigned char kIac = 255;
constexpr unsigned char kIp = 244;
constexpr unsigned char kDm = 242;
constexpr unsigned char kNop = 241;
constexpr unsigned char kWill = 251;
constexpr unsigned char kWont = 252;
constexpr unsigned char kDo = 253;
constexpr unsigned char kDont = 254;

}  // namespace

TEST_CASE("LineReader yields a CRLF line without its terminator", "[control][line_reader]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, "USER anonymous\r\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line == "USER anonymous");
  CHECK_FALSE(events[0].too_long);
  CHECK(reader.buffered_bytes() == 0);
}

TEST_CASE("LineReader accepts a bare LF as a line end", "[control][line_reader]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, "NOOP\nPWD\n");
  REQUIRE(events.size() == 2);
  CHECK(events[0].line == "NOOP");
  CHECK(events[1].line == "PWD");
}

TEST_CASE("LineReader yields an empty line for CRLF alone and for LF alone",
          "[control][line_reader]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, "\r\n\n");
  REQUIRE(events.size() == 2);
  CHECK(events[0].line.empty());
  CHECK_FALSE(events[0].too_long);
  CHECK(events[1].line.empty());
  CHECK_FALSE(events[1].too_long);
}

TEST_CASE("LineReader yields nothing for an empty feed or a partial line",
          "[control][line_reader]") {
  LineReader reader(4096);
  CHECK(feed_one(reader, "").empty());
  CHECK(reader.buffered_bytes() == 0);
  CHECK(feed_one(reader, "RETR fi").empty());
  CHECK(reader.buffered_bytes() == 7);
  const auto events = feed_one(reader, "le\r\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line == "RETR file");
  CHECK(reader.buffered_bytes() == 0);
}

TEST_CASE("LineReader keeps a CR that is not just before LF", "[control][line_reader]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, "a\rb\r\r\n");
  REQUIRE(events.size() == 1);
  // Only the CR right before LF belongs to the terminator.
  CHECK(events[0].line == "a\rb\r");
}

TEST_CASE("LineReader holds a CR at the end of a chunk until the LF arrives",
          "[control][line_reader]") {
  LineReader reader(4096);
  auto events = feed_one(reader, "QUIT\r");
  CHECK(events.empty());
  events = feed_one(reader, "\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line == "QUIT");
}

TEST_CASE("LineReader gives the same lines for input split at any byte", "[control][line_reader]") {
  const std::string wire = "USER ftp\r\nPASS a b\nSTOR my file.txt\r\n\r\nNOOP\r\n";
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    INFO("cut " << cut);
    LineReader reader(4096);
    const std::string_view view(wire);
    const auto events = feed_chunks(reader, {view.substr(0, cut), view.substr(cut)});
    REQUIRE(events.size() == 5);
    CHECK(events[0].line == "USER ftp");
    CHECK(events[1].line == "PASS a b");
    CHECK(events[2].line == "STOR my file.txt");
    CHECK(events[3].line.empty());
    CHECK(events[4].line == "NOOP");
    for (const auto& event : events) CHECK_FALSE(event.too_long);
  }
}

TEST_CASE("LineReader gives the same lines when fed one byte at a time", "[control][line_reader]") {
  const std::string wire =
      "ABOR\r\n" + iac({kIac, kIp, kIac, kDm}) + "ABOR\r\nX" + iac({kIac, kIac}) + "Y\n";
  LineReader reader(4096);
  const auto events = feed_bytewise(reader, wire);
  REQUIRE(events.size() == 3);
  CHECK(events[0].line == "ABOR");
  CHECK(events[1].line == "ABOR");
  CHECK(events[2].line == "X\xFFY");
}

TEST_CASE("LineReader cap: a CRLF line of exactly max_line_bytes is accepted",
          "[control][line_reader]") {
  // The cap counts the terminating LF: everything before it may use max_line_bytes - 1 bytes,
  // so with CRLF the text may be max_line_bytes - 2 bytes.
  const std::size_t cap = GENERATE(as<std::size_t>{}, 3, 4, 10, 64, 4096);
  LineReader reader(cap);
  const std::string text(cap - 2, 'a');
  const auto events = feed_one(reader, text + "\r\n");
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].too_long);
  CHECK(events[0].line == text);
}

TEST_CASE("LineReader cap: a CRLF line of max_line_bytes + 1 is too long",
          "[control][line_reader]") {
  const std::size_t cap = GENERATE(as<std::size_t>{}, 3, 4, 10, 64, 4096);
  LineReader reader(cap);
  const auto events = feed_one(reader, std::string(cap - 1, 'a') + "\r\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].too_long);
  CHECK(events[0].line.empty());
}

TEST_CASE("LineReader cap: a bare-LF line of exactly max_line_bytes is accepted, one more is not",
          "[control][line_reader]") {
  const std::size_t cap = GENERATE(as<std::size_t>{}, 2, 3, 10, 4096);
  {
    LineReader reader(cap);
    const auto events = feed_one(reader, std::string(cap - 1, 'b') + "\n");
    REQUIRE(events.size() == 1);
    CHECK_FALSE(events[0].too_long);
    CHECK(events[0].line == std::string(cap - 1, 'b'));
  }
  {
    LineReader reader(cap);
    const auto events = feed_one(reader, std::string(cap, 'b') + "\n");
    REQUIRE(events.size() == 1);
    CHECK(events[0].too_long);
  }
}

TEST_CASE("LineReader cap of 1 still yields empty lines and rejects any text",
          "[control][line_reader]") {
  LineReader reader(1);
  const auto events = feed_one(reader, "\nx\n");
  REQUIRE(events.size() == 2);
  CHECK_FALSE(events[0].too_long);
  CHECK(events[0].line.empty());
  CHECK(events[1].too_long);
}

TEST_CASE("LineReader reports an overlong line once and then reads the next line",
          "[control][line_reader]") {
  LineReader reader(16);
  const std::string longline(100, 'z');
  const auto events = feed_one(reader, longline + "\r\nNOOP\r\n");
  REQUIRE(events.size() == 2);
  CHECK(events[0].too_long);
  CHECK(events[0].line.empty());
  CHECK_FALSE(events[1].too_long);
  CHECK(events[1].line == "NOOP");
}

TEST_CASE("LineReader discards an overlong line split across many feeds without buffering it",
          "[control][line_reader]") {
  LineReader reader(16);
  std::vector<LineEvent> events;
  const std::string chunk(1000, 'q');
  for (int i = 0; i < 50; ++i) {
    reader.feed(bytes_of(chunk), events);
    CHECK(reader.buffered_bytes() < 16);
  }
  CHECK(events.empty());
  reader.feed(bytes_of("\r\nPWD\r\n"), events);
  REQUIRE(events.size() == 2);
  CHECK(events[0].too_long);
  CHECK(events[1].line == "PWD");
}

TEST_CASE("LineReader overlong line split at any byte gives one too_long event then the next line",
          "[control][line_reader]") {
  const std::string wire = std::string(20, 'x') + "\r\nCWD a\r\n";
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    INFO("cut " << cut);
    LineReader reader(10);
    const std::string_view view(wire);
    const auto events = feed_chunks(reader, {view.substr(0, cut), view.substr(cut)});
    REQUIRE(events.size() == 2);
    CHECK(events[0].too_long);
    CHECK(events[1].line == "CWD a");
    CHECK_FALSE(events[1].too_long);
  }
}

TEST_CASE("LineReader strips Telnet commands IAC IP and IAC DM before ABOR",
          "[control][line_reader][telnet]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, iac({kIac, kIp, kIac, kDm}) + "ABOR\r\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line == "ABOR");
}

TEST_CASE("LineReader strips Telnet option negotiation with its option byte",
          "[control][line_reader][telnet]") {
  const unsigned char verb = GENERATE(kWill, kWont, kDo, kDont);
  // The option byte may be anything, even 'A', CR, LF or IAC: it is consumed, not data.
  const unsigned char option = GENERATE(as<unsigned char>{}, 1, 'A', '\r', '\n', 255);
  LineReader reader(4096);
  const auto events = feed_one(reader, "NO" + iac({kIac, verb, option}) + "OP\r\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line == "NOOP");
}

TEST_CASE("LineReader turns IAC IAC into one 0xFF data byte", "[control][line_reader][telnet]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, "STOR a" + iac({kIac, kIac}) + "b\r\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line ==
        "STOR a\xFF"
        "b");
}

TEST_CASE("LineReader strips single-byte Telnet commands such as NOP",
          "[control][line_reader][telnet]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, "PW" + iac({kIac, kNop}) + "D\r\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line == "PWD");
}

TEST_CASE("LineReader handles Telnet sequences split at any byte",
          "[control][line_reader][telnet]") {
  const std::string wire = iac({kIac, kIp, kIac, kDm}) + "AB" + iac({kIac, kWill, 1}) + "OR" +
                           iac({kIac, kIac}) + "\r\n";
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    INFO("cut " << cut);
    LineReader reader(4096);
    const std::string_view view(wire);
    const auto events = feed_chunks(reader, {view.substr(0, cut), view.substr(cut)});
    REQUIRE(events.size() == 1);
    CHECK(events[0].line == "ABOR\xFF");
  }
}

TEST_CASE("LineReader: an IAC command between CR and LF still ends the line cleanly",
          "[control][line_reader][telnet]") {
  LineReader reader(4096);
  const auto events = feed_one(reader, "NOOP\r" + iac({kIac, kNop}) + "\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].line == "NOOP");
}

TEST_CASE("LineReader: stripped Telnet bytes do not count toward the cap",
          "[control][line_reader][telnet]") {
  LineReader reader(6);
  // "ABOR\r\n" is exactly 6 bytes; the 4 Telnet bytes before it are not line data.
  const auto events = feed_one(reader, iac({kIac, kIp, kIac, kDm}) + "ABOR\r\n");
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].too_long);
  CHECK(events[0].line == "ABOR");
}
