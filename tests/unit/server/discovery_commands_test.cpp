// DiscoveryCommands without a session: NOOP SYST FEAT HELP LANG, replies recorded (RFC 959
// §4.1.3, RFC 2389, RFC 2640 §4). FEAT lists what the server offers and nothing else.
#include "server/session/discovery_commands.hpp"

#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "tests/unit/server/part_test_support.hpp"

namespace gridftp::server::testing {
namespace {

using I = DiscoveryCommands;

struct Discovery {
  explicit Discovery(OfferedFeatures offered = {}) : commands(offered, replies) {}

  protocol::control::Reply run(transport::awaitable<void> (I::*handler)(const std::string&),
                               const std::string& argument = "") {
    run_handler((commands.*handler)(argument));
    return replies.take();
  }

  RecordingReplies replies;
  DiscoveryCommands commands;
};

bool lists(const protocol::control::Reply& reply, const std::string& line) {
  return std::find(reply.lines.begin(), reply.lines.end(), line) != reply.lines.end();
}

TEST_CASE("DiscoveryCommands NOOP and SYST answer as a UNIX server", "[session][discovery]") {
  Discovery discovery;
  CHECK(discovery.run(&I::on_noop).code == 200);
  const auto syst = discovery.run(&I::on_syst);
  CHECK(syst.code == 215);
  CHECK(syst.lines.front() == "UNIX Type: L8");
}

TEST_CASE("DiscoveryCommands FEAT lists DCAU, UDPX and AUTH TLS only where offered",
          "[session][discovery]") {
  Discovery plain;
  const auto bare = plain.run(&I::on_feat);
  CHECK(bare.code == 211);
  CHECK(lists(bare, " PARALLEL"));
  CHECK_FALSE(lists(bare, " DCAU"));
  CHECK_FALSE(lists(bare, " UDPX"));
  CHECK_FALSE(lists(bare, " AUTH TLS"));

  Discovery gsi({.gsi = true, .tls = false, .udpx = true});
  const auto grid = gsi.run(&I::on_feat);
  CHECK(lists(grid, " DCAU"));
  CHECK(lists(grid, " UDPX"));
  CHECK_FALSE(lists(grid, " AUTH TLS"));

  Discovery ftps({.gsi = false, .tls = true, .udpx = false});
  const auto tls = ftps.run(&I::on_feat);
  CHECK(lists(tls, " AUTH TLS"));
  CHECK(lists(tls, " PBSZ"));
  CHECK_FALSE(lists(tls, " DCAU"));
}

TEST_CASE("DiscoveryCommands HELP lists the commands", "[session][discovery]") {
  Discovery discovery;
  const auto help = discovery.run(&I::on_help);
  CHECK(help.code == 214);
  CHECK(help.lines.size() > 3);
}

TEST_CASE("DiscoveryCommands LANG takes EN and refuses other languages", "[session][discovery]") {
  Discovery discovery;
  CHECK(discovery.run(&I::on_lang, "en").code == 200);
  CHECK(discovery.run(&I::on_lang).code == 200);
  const auto french = discovery.run(&I::on_lang, "FR");
  CHECK(french.code == 504);
  CHECK(french.lines.front() == "Only EN is supported.");
}

}  // namespace
}  // namespace gridftp::server::testing
