// The UDPX handshake (docs/UDPX.md §1.8, §4.1) between two Handshake objects, datagrams handed
// across by the test: both ends reach the same traffic keys, the HELLO fills the datagram size
// and the HELLO_ACK is no larger, lost HELLOs are resent and backed off, a HELLO repeated after
// a lost HELLO_ACK is answered again, and a HELLO from someone without the control session's
// secret is ignored.
#include "transport/udpx/handshake.hpp"

#include <vector>

#include <catch2/catch.hpp>

#include "security/udpx/key_schedule.hpp"

using namespace gridftp::transport::udpx;
namespace wire = gridftp::protocol::udpx;
namespace crypto = gridftp::security::udpx;
using gridftp::Result;

namespace {

// Stands in for the control session's exporter: a keyed function of the random.
SecretForRandom exporter(std::uint8_t session_key) {
  return [session_key](const Random& random) -> Result<crypto::Secret> {
    crypto::Secret key{};
    key.fill(session_key);
    return crypto::hkdf_extract(random, key);
  };
}

wire::HelloBody offer() {
  wire::HelloBody body;
  body.target_rate_bps = 900'000'000;
  body.min_rate_bps = 10'000'000;
  body.policy = wire::Policy::High;
  body.encrypt = true;
  return body;
}

std::vector<std::uint8_t> next(Handshake& handshake, Microseconds now) {
  std::vector<std::uint8_t> out(2048);
  auto length = handshake.next_datagram(out, now);
  REQUIRE(length);
  out.resize(*length);
  return out;
}

// A traffic packet sealed by one path opens on the other.
void check_traffic(PacketPath& from, PacketPath& to) {
  std::vector<std::uint8_t> packet(256);
  wire::CommonHeader header;
  header.type = wire::PacketType::Ping;
  auto length = from.control(packet, header, [](std::span<std::uint8_t> body) {
    return wire::encode_ping({1, 2, wire::PingKind::Keepalive}, body);
  });
  REQUIRE(length);
  packet.resize(*length);
  auto opened = to.open(packet);
  REQUIRE(opened);
  CHECK(opened->header.type == wire::PacketType::Ping);
}

}  // namespace

TEST_CASE("A HELLO and its HELLO_ACK give both sides the same traffic keys", "[udpx]") {
  auto active = Handshake::active(exporter(9), offer(), 1452);
  REQUIRE(active);
  auto passive = Handshake::passive(exporter(9), wire::HelloBody{});
  auto hello = next(*active, 1'000);
  CHECK(hello.size() == 1452);          // padded: proves the path carries full datagrams
  CHECK(next(*active, 1'001).empty());  // not again before the retry time
  passive.on_datagram(hello, 20'000);
  REQUIRE(passive.state() == Handshake::State::Ready);
  CHECK(passive.peer_hello().target_rate_bps == 900'000'000);
  CHECK(passive.peer_hello().policy == wire::Policy::High);
  CHECK(passive.peer_hello().encrypt);
  auto hello_ack = next(passive, 20'000);
  CHECK(hello_ack.size() <= hello.size());
  active->on_datagram(hello_ack, 41'000);
  REQUIRE(active->state() == Handshake::State::Ready);
  CHECK(active->rtt() == 40'000);
  check_traffic(active->path(), passive.path());
  check_traffic(passive.path(), active->path());
}

TEST_CASE("A lost HELLO is sent again, later each time, then the handshake fails", "[udpx]") {
  auto active = Handshake::active(exporter(9), offer(), 1200);
  REQUIRE(active);
  std::vector<Microseconds> sent_at;
  for (Microseconds now = 0; now < 20'000'000 && active->state() == Handshake::State::Waiting;
       now += 1'000) {
    if (!next(*active, now).empty()) sent_at.push_back(now);
  }
  CHECK(sent_at == std::vector<Microseconds>{0, 250'000, 750'000, 1'750'000, 3'750'000});
  CHECK(active->state() == Handshake::State::Failed);
}

TEST_CASE("A HELLO repeated after a lost HELLO_ACK is answered again", "[udpx]") {
  auto active = Handshake::active(exporter(9), offer(), 1452);
  REQUIRE(active);
  auto passive = Handshake::passive(exporter(9), wire::HelloBody{});
  auto first = next(*active, 0);
  passive.on_datagram(first, 10'000);
  REQUIRE(!next(passive, 10'000).empty());  // this HELLO_ACK is lost
  CHECK(next(passive, 10'001).empty());
  auto retry = next(*active, 250'000);
  passive.on_datagram(retry, 260'000);  // the retry
  auto again = next(passive, 260'000);
  REQUIRE(!again.empty());
  active->on_datagram(again, 270'000);
  REQUIRE(active->state() == Handshake::State::Ready);
  check_traffic(active->path(), passive.path());
}

TEST_CASE("A HELLO from someone without the session's secret is ignored", "[udpx]") {
  auto stranger = Handshake::active(exporter(1), offer(), 1452);
  REQUIRE(stranger);
  auto passive = Handshake::passive(exporter(9), wire::HelloBody{});
  auto hello = next(*stranger, 0);
  passive.on_datagram(hello, 1'000);
  CHECK(passive.state() == Handshake::State::Waiting);
  CHECK(next(passive, 1'000).empty());
  // Nor does a damaged HELLO from the right peer get through.
  auto active = Handshake::active(exporter(9), offer(), 1452);
  REQUIRE(active);
  auto damaged = next(*active, 0);
  damaged[40] ^= 1;
  passive.on_datagram(damaged, 2'000);
  CHECK(passive.state() == Handshake::State::Waiting);
}
