// The UDPX handshake (docs/UDPX.md §1.8, §4.1) between two Handshake objects, datagrams handed
// across by the test: both ends reach the same traffic keys, the HELLO fills the datagram size
// and the HELLO_ACK is no larger, lost HELLOs are resent and backed off, a HELLO repeated after
// a lost HELLO_ACK is answered again, and a HELLO from someone without the control session's
// secret is ignored.
#include "transport/udpx/handshake.hpp"

#include <vector>

#include <catch2/catch.hpp>

#include "security/gsi_handshake.hpp"
#include "security/tls_contexts.hpp"
#include "security/udpx/key_schedule.hpp"
#include "tests/unit/security/test_pki.hpp"

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

namespace {

namespace security = gridftp::security;
using security::testing::kHostDn;
using security::testing::kUserDn;
using security::testing::test_pki;

// DCAU A's data-channel TLS for one side: both sides hold the user's proxy, as two servers
// with the same delegated credential (or gridcp and a server) do.
InBandTls dcau_tls(bool client, const security::Credential& own, std::string expected) {
  auto context = security::make_gsi_data_context(
      own, test_pki().trust_store(), client ? security::TlsRole::Client : security::TlsRole::Server,
      security::DataProtection::Private, false);
  REQUIRE(context);
  security::GsiOptions options;
  options.ssl_compatible = true;
  auto tls = security::GsiHandshake::create(
      context->get(),
      client ? security::TlsEngine::Role::Client : security::TlsEngine::Role::Server, options);
  REQUIRE(tls);
  return InBandTls{std::make_unique<security::GsiHandshake>(std::move(*tls)), std::move(expected)};
}

// Hands datagrams between two handshakes until both are done (or `limit` exchanges pass);
// `lose(n)` says whether the n-th datagram is lost.
template <typename Lose>
void exchange(Handshake& active, Handshake& passive, Lose lose, Microseconds& now) {
  int sent = 0;
  for (int turn = 0; turn < 400; ++turn) {
    const bool done =
        active.state() != Handshake::State::Waiting && passive.state() != Handshake::State::Waiting;
    if (done) return;
    bool moved = false;
    for (auto* from : {&active, &passive}) {
      auto* to = from == &active ? &passive : &active;
      for (;;) {
        auto datagram = next(*from, now);
        if (datagram.empty()) break;
        moved = true;
        if (!lose(sent++)) to->on_datagram(datagram, now + 1000);
      }
    }
    now = moved ? now + 1000 : std::min(active.next_wakeup(now), passive.next_wakeup(now));
  }
}

}  // namespace

TEST_CASE("A TLS handshake in KEY_EXCHANGE packets gives both sides the connection keys",
          "[udpx]") {
  auto active = Handshake::active(dcau_tls(true, test_pki().user_proxy(), std::string(kUserDn)),
                                  offer(), 1452);
  REQUIRE(active);
  auto passive =
      Handshake::passive(dcau_tls(false, test_pki().user_proxy(), std::string(kUserDn)), {});
  REQUIRE(passive);
  Microseconds now = 1'000'000;
  SECTION("over a clean path") {
    exchange(
        *active, *passive, [](int) { return false; }, now);
  }
  SECTION("when every third datagram is lost") {
    exchange(
        *active, *passive, [](int n) { return n % 3 == 1; }, now);
  }
  REQUIRE(active->state() == Handshake::State::Ready);
  REQUIRE(passive->state() == Handshake::State::Ready);
  CHECK(active->peer_identity() == kUserDn);
  CHECK(passive->peer_identity() == kUserDn);
  CHECK(passive->peer_hello().target_rate_bps == offer().target_rate_bps);
  check_traffic(active->path(), passive->path());
  check_traffic(passive->path(), active->path());
}

TEST_CASE("An in-band TLS peer with another identity than DCAU expects is refused", "[udpx]") {
  auto active = Handshake::active(dcau_tls(true, test_pki().user_proxy(), std::string(kHostDn)),
                                  offer(), 1452);
  REQUIRE(active);
  auto passive = Handshake::passive(dcau_tls(false, test_pki().host(), std::string(kHostDn)), {});
  REQUIRE(passive);
  Microseconds now = 1'000'000;
  exchange(
      *active, *passive, [](int) { return false; }, now);
  CHECK(passive->state() == Handshake::State::Failed);
  CHECK(passive->failure().find(std::string(kUserDn)) != std::string::npos);
  CHECK(active->state() != Handshake::State::Ready);
}

TEST_CASE("Unauthenticated in-band TLS gives both sides the keys and names nobody", "[udpx]") {
  auto active_tls = unauthenticated_tls(Side::Active);
  auto passive_tls = unauthenticated_tls(Side::Passive);
  REQUIRE(active_tls);
  REQUIRE(passive_tls);
  auto active = Handshake::active(std::move(*active_tls), offer(), 1452);
  REQUIRE(active);
  auto passive = Handshake::passive(std::move(*passive_tls), {});
  REQUIRE(passive);
  Microseconds now = 1'000'000;
  exchange(
      *active, *passive, [](int) { return false; }, now);
  REQUIRE(active->state() == Handshake::State::Ready);
  REQUIRE(passive->state() == Handshake::State::Ready);
  CHECK(active->peer_identity().empty());
  CHECK(passive->peer_identity().empty());
  check_traffic(active->path(), passive->path());
  check_traffic(passive->path(), active->path());
}

TEST_CASE("A DCAU side refuses a peer that offers only unauthenticated TLS", "[udpx]") {
  // The server of a DCAU session asks for a certificate; an unauthenticated client has none.
  auto active_tls = unauthenticated_tls(Side::Active);
  REQUIRE(active_tls);
  auto active = Handshake::active(std::move(*active_tls), offer(), 1452);
  REQUIRE(active);
  auto passive =
      Handshake::passive(dcau_tls(false, test_pki().user_proxy(), std::string(kUserDn)), {});
  REQUIRE(passive);
  Microseconds now = 1'000'000;
  exchange(
      *active, *passive, [](int) { return false; }, now);
  CHECK(passive->state() != Handshake::State::Ready);
  CHECK(active->state() != Handshake::State::Ready);
}
