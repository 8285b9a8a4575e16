// Small helpers shared by the session_*_test.cpp files: one command and its reply, a logged-in
// anonymous session, files under the harness's temporary root.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "tests/unit/server/session_harness.hpp"

namespace gridftp::server::testing {

// Sends `line` with CRLF and reads the one reply it gets.
inline TestReply command(SessionHarness& session, std::string_view line) {
  REQUIRE(session.send(std::string(line) + "\r\n"));
  return session.read_reply();
}

// Reads the greeting and logs in as anonymous. The anonymous user may write only below
// "incoming" (session_harness.cpp), which this makes in the root first.
inline void log_in(SessionHarness& session) {
  std::filesystem::create_directories(session.root() / "incoming");
  REQUIRE(session.read_reply().code == 220);
  REQUIRE(session.send("USER anonymous\r\nPASS me@example.org\r\n"));
  const auto replies = session.read_replies(2);
  REQUIRE(replies[0].code == 331);
  REQUIRE(replies[1].code == 230);
}

// Writes `content` to `relative` below the root (its directory made) and returns its path.
inline std::filesystem::path put_file(SessionHarness& session, const std::string& relative,
                                      std::string_view content) {
  const auto path = session.root() / relative;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

inline bool has_text(const TestReply& reply, std::string_view needle) {
  return reply.text.find(needle) != std::string::npos;
}

// All lines of a (multi-line) reply joined by '\n'.
inline std::string all_lines(const TestReply& reply) {
  std::string joined;
  for (const auto& line : reply.lines) joined += line + "\n";
  return joined;
}

}  // namespace gridftp::server::testing
