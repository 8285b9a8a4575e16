// DataSetupCommands without a session: PASV EPSV PORT EPRT SPAS SPOR SBUF against a DataChannel and
// a UdpxChannel of its own, its replies recorded, with at least one bad input per verb (RFC 959
// §4.1.2, RFC 2428, RFC 2577 §3, GFD.20). Passive listeners bind on 127.0.0.1 only.
#include "server/session/data_setup_commands.hpp"

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/control/net_stack.hpp"
#include "tests/unit/server/part_test_support.hpp"
#include "transport/loop_pool.hpp"

namespace gridftp::server::testing {
namespace {

namespace asio = transport::asio;
using transport::tcp;
using D = DataSetupCommands;

ListenConfig loopback_listen(const std::function<void(ListenConfig&)>& configure) {
  ListenConfig listen;
  listen.data_interface = "127.0.0.1";
  if (configure) configure(listen);
  return listen;
}

// A DataSetupCommands whose control connection runs from 127.0.0.1:40000 to 127.0.0.1:2811.
struct DataSetup {
  explicit DataSetup(const std::function<void(ListenConfig&)>& configure = {})
      : listen(loopback_listen(configure)) {}

  protocol::control::Reply run(transport::awaitable<void> (D::*handler)(const std::string&),
                               const std::string& argument = "") {
    run_handler(context, (commands.*handler)(argument));
    return replies.take();
  }

  // SITE SETNETSTACK udpx: PASV and PORT now set up the UDPX channel.
  void choose_udpx() {
    const auto parsed = protocol::control::parse_net_stack("udpx");
    REQUIRE(std::holds_alternative<protocol::control::NetStack>(parsed));
    udpx.enable(std::get<protocol::control::NetStack>(parsed));
  }

  const ListenConfig listen;
  const ControlEndpoints endpoints{tcp::endpoint(asio::ip::make_address("127.0.0.1"), 2811),
                                   tcp::endpoint(asio::ip::make_address("127.0.0.1"), 40000)};
  asio::io_context context;
  transport::LoopPool loops{1};
  DataChannel channel{context.get_executor(), loops, listen};
  UdpxChannel udpx;
  StreamCache cached_streams;
  RecordingReplies replies;
  DataSetupCommands commands{{channel, udpx, cached_streams},
                             listen,
                             endpoints,
                             context.get_executor(),
                             replies,
                             quiet_logger(),
                             "[s1]"};
};

// The port a "h1,h2,h3,h4,p1,p2" host-port names.
unsigned long port_of(const std::string& host_port) {
  const auto p2_comma = host_port.rfind(',');
  const auto p1_comma = host_port.rfind(',', p2_comma - 1);
  return std::stoul(host_port.substr(p1_comma + 1, p2_comma - p1_comma - 1)) * 256 +
         std::stoul(host_port.substr(p2_comma + 1));
}

TEST_CASE("DataSetupCommands PASV listens on the data interface and names it",
          "[session][data_setup]") {
  DataSetup setup;
  const auto reply = setup.run(&D::on_pasv);
  CHECK(reply.code == 227);
  REQUIRE(reply.lines.front().starts_with("Entering Passive Mode (127,0,0,1,"));
  CHECK(setup.channel.is_passive());
  CHECK_FALSE(setup.channel.is_active());
  const auto& text = reply.lines.front();
  const auto open = text.find('(');
  CHECK(port_of(text.substr(open + 1, text.size() - open - 2)) > 0);
}

TEST_CASE("DataSetupCommands PASV names the passive_address instead of the bound one",
          "[session][data_setup]") {
  DataSetup setup([](ListenConfig& listen) { listen.passive_address = "203.0.113.7"; });
  CHECK(setup.run(&D::on_pasv).lines.front().starts_with("Entering Passive Mode (203,0,113,7,"));
}

TEST_CASE("DataSetupCommands PASV on an IPv6 data interface is refused", "[session][data_setup]") {
  DataSetup setup([](ListenConfig& listen) { listen.data_interface = "::1"; });
  const auto reply = setup.run(&D::on_pasv);
  CHECK(reply.code == 522);
  CHECK(reply.lines.front() == "Network protocol not supported; use EPSV.");
  CHECK_FALSE(setup.channel.is_configured());
}

TEST_CASE("DataSetupCommands PASV and SPAS answer 425 when the passive range is taken",
          "[session][data_setup]") {
  // A listener holds the only port of the passive range.
  asio::io_context other;
  tcp::acceptor holder(other, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auto taken = holder.local_endpoint().port();
  DataSetup setup([taken](ListenConfig& listen) {
    listen.passive_port_min = taken;
    listen.passive_port_max = taken;
  });
  const auto handler = GENERATE(&D::on_pasv, &D::on_epsv, &D::on_spas);
  const auto reply = setup.run(handler);
  CHECK(reply.code == 425);
  CHECK(reply.lines.front() == "Can't open passive listener.");
}

TEST_CASE("DataSetupCommands PASV under UDPX binds the UDPX channel, not TCP",
          "[session][data_setup]") {
  DataSetup setup;
  setup.choose_udpx();
  const auto reply = setup.run(&D::on_pasv);
  CHECK(reply.code == 227);
  CHECK(reply.lines.front().starts_with("Entering Passive Mode (127,0,0,1,"));
  CHECK(setup.udpx.is_configured());
  CHECK_FALSE(setup.udpx.is_active());
  CHECK_FALSE(setup.channel.is_configured());
}

TEST_CASE("DataSetupCommands EPSV answers with a port and EPSV ALL with 200",
          "[session][data_setup]") {
  DataSetup setup;
  const auto reply = setup.run(&D::on_epsv);
  CHECK(reply.code == 229);
  CHECK(reply.lines.front().starts_with("Entering Extended Passive Mode (|||"));
  CHECK(reply.lines.front().ends_with("|)"));
  CHECK(setup.channel.is_passive());
  CHECK(setup.run(&D::on_epsv, "1").code == 229);
  const auto all = setup.run(&D::on_epsv, "ALL");
  CHECK(all.code == 200);
  CHECK(all.lines.front() == "EPSV ALL Successful.");
}

TEST_CASE("DataSetupCommands EPSV refuses the other protocol and a bad argument",
          "[session][data_setup]") {
  DataSetup setup;
  const auto other = setup.run(&D::on_epsv, "2");
  CHECK(other.code == 522);
  CHECK(other.lines.front() == "Network protocol not supported, use (1).");
  const auto bad = setup.run(&D::on_epsv, "3");
  CHECK(bad.code == 501);
  CHECK(bad.lines.front() == "Bad EPSV argument.");
  CHECK_FALSE(setup.channel.is_configured());
}

TEST_CASE("DataSetupCommands PORT names the peer to connect to", "[session][data_setup]") {
  DataSetup setup;
  const auto reply = setup.run(&D::on_port, "127,0,0,1,4,1");
  CHECK(reply.code == 200);
  CHECK(reply.lines.front() == "PORT Command successful.");
  REQUIRE(setup.channel.active_peers().size() == 1);
  CHECK(setup.channel.active_peers().front() ==
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), 1025));
}

TEST_CASE("DataSetupCommands PORT refuses a malformed address and a low port",
          "[session][data_setup]") {
  DataSetup setup;
  const auto malformed = setup.run(&D::on_port, "127,0,0,1,4");
  CHECK(malformed.code == 501);
  CHECK(malformed.lines.front() == "Illegal PORT command.");
  CHECK(setup.run(&D::on_port, "300,0,0,1,4,1").code == 501);
  const auto low = setup.run(&D::on_port, "127,0,0,1,0,21");
  CHECK(low.code == 501);
  CHECK(low.lines.front() == "Illegal PORT command: data port below 1024 refused.");
  CHECK_FALSE(setup.channel.is_configured());
}

TEST_CASE("DataSetupCommands PORT and EPRT refuse a third party when the peer must match",
          "[session][data_setup]") {
  DataSetup setup([](ListenConfig& listen) { listen.require_data_peer_match = true; });
  const auto port = setup.run(&D::on_port, "10,0,0,1,4,1");
  CHECK(port.code == 501);
  CHECK(port.lines.front() ==
        "Illegal PORT command: data connections go only to the control connection's address.");
  CHECK(setup.run(&D::on_eprt, "|1|10.0.0.1|1025|").code == 501);
  CHECK_FALSE(setup.channel.is_configured());
  CHECK(setup.run(&D::on_port, "127,0,0,1,4,1").code == 200);
}

TEST_CASE("DataSetupCommands PORT under UDPX names the UDPX peer", "[session][data_setup]") {
  DataSetup setup;
  setup.choose_udpx();
  CHECK(setup.run(&D::on_port, "127,0,0,1,4,1").code == 200);
  REQUIRE(setup.udpx.active_peer());
  CHECK(setup.udpx.active_peer()->port() == 1025);
  CHECK_FALSE(setup.channel.is_configured());
}

TEST_CASE("DataSetupCommands EPRT takes IPv4 and IPv6 peers", "[session][data_setup]") {
  DataSetup setup;
  const auto v4 = setup.run(&D::on_eprt, "|1|127.0.0.1|1025|");
  CHECK(v4.code == 200);
  CHECK(v4.lines.front() == "EPRT Command successful.");
  CHECK(setup.run(&D::on_eprt, "|2|::1|1026|").code == 200);
  REQUIRE(setup.channel.active_peers().size() == 1);
  CHECK(setup.channel.active_peers().front() == tcp::endpoint(asio::ip::make_address("::1"), 1026));
}

TEST_CASE("DataSetupCommands EPRT refuses bad addresses, unknown families and low ports",
          "[session][data_setup]") {
  DataSetup setup;
  CHECK(setup.run(&D::on_eprt, "").code == 501);
  const auto address = setup.run(&D::on_eprt, "|1|not-an-address|1025|");
  CHECK(address.code == 501);
  CHECK(setup.run(&D::on_eprt, "|9|127.0.0.1|1025|").code == 522);
  const auto low = setup.run(&D::on_eprt, "|1|127.0.0.1|21|");
  CHECK(low.code == 501);
  CHECK(low.lines.front() == "Illegal EPRT command: data port below 1024 refused.");
  CHECK_FALSE(setup.channel.is_configured());
}

TEST_CASE("DataSetupCommands SPAS answers one address line", "[session][data_setup]") {
  DataSetup setup;
  const auto reply = setup.run(&D::on_spas);
  CHECK(reply.code == 229);
  REQUIRE(reply.lines.size() == 3);
  CHECK(reply.lines[0] == "Entering Striped Passive Mode.");
  CHECK(reply.lines[1].starts_with(" 127,0,0,1,"));
  CHECK(reply.lines[2] == "End");
  CHECK(setup.channel.is_passive());
}

TEST_CASE("DataSetupCommands SPAS names an IPv6 listener in EPRT form", "[session][data_setup]") {
  DataSetup setup([](ListenConfig& listen) { listen.data_interface = "::1"; });
  const auto reply = setup.run(&D::on_spas);
  CHECK(reply.code == 229);
  REQUIRE(reply.lines.size() == 3);
  CHECK(reply.lines[1].starts_with(" |2|::1|"));
}

TEST_CASE("DataSetupCommands SPOR takes one peer per stripe", "[session][data_setup]") {
  DataSetup setup;
  const auto reply = setup.run(&D::on_spor, "127,0,0,1,4,1 |1|127.0.0.1|1026|");
  CHECK(reply.code == 200);
  CHECK(reply.lines.front() == "PORT Command successful.");
  CHECK(setup.channel.active_peers() ==
        std::vector<tcp::endpoint>{tcp::endpoint(asio::ip::make_address("127.0.0.1"), 1025),
                                   tcp::endpoint(asio::ip::make_address("127.0.0.1"), 1026)});
}

TEST_CASE("DataSetupCommands SPOR refuses an empty list, a malformed peer and a low port",
          "[session][data_setup]") {
  DataSetup setup;
  CHECK(setup.run(&D::on_spor, "").lines.front() == "Illegal SPOR command.");
  CHECK(setup.run(&D::on_spor, "  ").lines.front() == "Illegal SPOR command.");
  const auto malformed = setup.run(&D::on_spor, "127,0,0,1,4,1 127,0,0,1,4");
  CHECK(malformed.code == 501);
  CHECK(malformed.lines.front() == "Illegal SPOR command.");
  const auto low = setup.run(&D::on_spor, "127,0,0,1,0,80");
  CHECK(low.code == 501);
  CHECK(low.lines.front() == "Illegal SPOR command: data port below 1024 refused.");
  CHECK_FALSE(setup.channel.is_configured());
}

TEST_CASE("DataSetupCommands SBUF sets the next data sockets' buffer size",
          "[session][data_setup]") {
  DataSetup setup;
  const auto reply = setup.run(&D::on_sbuf, "4194304");
  CHECK(reply.code == 200);
  CHECK(reply.lines.front() == "SBUF Command Successful.");
  CHECK(setup.channel.socket_buffer() == 4194304);
  CHECK(setup.run(&D::on_sbuf, "0").code == 200);  // back to the kernel's autotuning
  CHECK(setup.channel.socket_buffer() == 0);
}

TEST_CASE("DataSetupCommands SBUF refuses what is not a size in 32 bits", "[session][data_setup]") {
  DataSetup setup;
  CHECK(setup.run(&D::on_sbuf, "65536").code == 200);
  for (const char* bad : {"", "-1", "1M", "4294967296", "12 34"}) {
    INFO(bad);
    CHECK(setup.run(&D::on_sbuf, bad).code == 501);
  }
  CHECK(setup.channel.socket_buffer() == 65536);  // unchanged by what was refused
}

}  // namespace
}  // namespace gridftp::server::testing
