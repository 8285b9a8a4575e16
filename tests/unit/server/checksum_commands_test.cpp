// ChecksumCommands without a session: CKSM over a logged-in user's temporary root, replies
// recorded (GFD.47 §3: CKSM <algorithm> <offset> <length> <path>, length -1 to the end), with
// bad input: a malformed request, an unknown algorithm, a missing file, a path outside the root
// and no login.
#include "server/session/checksum_commands.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/part_test_support.hpp"

namespace gridftp::server::testing {
namespace {

using C = ChecksumCommands;

struct Checksums : UserOnRoot {
  using UserOnRoot::UserOnRoot;

  protocol::control::Reply cksm(const std::string& argument) {
    run_handler(commands.on_cksm(argument));
    return replies.take();
  }

  RecordingReplies replies;
  NamespaceCommands names{login, replies, quiet_logger(), "[s1]"};
  transport::asio::thread_pool blocking{1};
  ChecksumCommands commands{names, login, blocking, replies, quiet_logger(), "[s1]"};
};

TEST_CASE("ChecksumCommands CKSM digests a whole file and a range of it", "[session][checksum]") {
  Checksums sums;
  sums.root.put("data/abc.txt", "abc");
  const auto md5 = sums.cksm("MD5 0 -1 /data/abc.txt");
  CHECK(md5.code == 213);
  CHECK(md5.lines.front() == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(sums.cksm("ADLER32 0 -1 data/abc.txt").lines.front() == "024d0127");
  sums.root.put("data/xabcx.txt", "xabcx");
  CHECK(sums.cksm("md5 1 3 /data/xabcx.txt").lines.front() == "900150983cd24fb0d6963f7d28e17f72");
  // Asked again, the whole file's value comes from what the first request stored: the same.
  CHECK(sums.cksm("MD5 0 -1 /data/abc.txt").lines.front() == "900150983cd24fb0d6963f7d28e17f72");
}

TEST_CASE("ChecksumCommands CKSM refuses a malformed request and an unknown algorithm",
          "[session][checksum]") {
  Checksums sums;
  sums.root.put("f.txt", "abc");
  for (const char* bad : {"", "MD5", "MD5 0 -1", "MD5 x -1 f.txt", "MD5 0 -2 f.txt"}) {
    INFO(bad);
    const auto reply = sums.cksm(bad);
    CHECK(reply.code == 501);
    CHECK(reply.lines.front() == "CKSM <algorithm> <offset> <length> <path>.");
  }
  const auto unknown = sums.cksm("WHIRLPOOL 0 -1 f.txt");
  CHECK(unknown.code == 500);
  CHECK(unknown.lines.front() == "Unknown checksum algorithm requested.");
}

TEST_CASE("ChecksumCommands CKSM of a missing file or one outside the root is refused",
          "[session][checksum]") {
  Checksums sums;
  const auto missing = sums.cksm("MD5 0 -1 /no/such.bin");
  CHECK(missing.code == 550);
  CHECK(missing.lines.front() == "No such file or directory.");
  CHECK(sums.cksm("MD5 0 -1 ../../etc/passwd").code == 550);
}

TEST_CASE("ChecksumCommands CKSM needs a login", "[session][checksum]") {
  Checksums sums(false);
  CHECK(sums.cksm("MD5 0 -1 /f.txt").code == 530);
}

}  // namespace
}  // namespace gridftp::server::testing
