// The byte stream that carries the TLS handshake in KEY_EXCHANGE packets (docs/UDPX.md §1.10):
// codec vectors, and two streams exchanging flights through a lossy, reordering, duplicating
// channel in virtual time until both hold the other's bytes exactly.
#include "protocol/udpx/key_exchange_stream.hpp"

#include <deque>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace udpx = gridftp::protocol::udpx;
using udpx::KeyExchangeBody;
using udpx::KeyExchangeStream;
using udpx::Microseconds;

namespace {

std::vector<std::uint8_t> encoded(const KeyExchangeBody& body) {
  std::vector<std::uint8_t> out(64 + body.bytes.size());
  auto length = udpx::encode_key_exchange(body, out);
  REQUIRE(length);
  out.resize(*length);
  return out;
}

std::string text(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string out(size, '\0');
  for (auto& c : out) c = static_cast<char>(random());
  return out;
}

}  // namespace

TEST_CASE("KEY_EXCHANGE bodies encode acknowledgement, offset and bytes", "[udpx]") {
  const std::vector<std::uint8_t> bytes{1, 2, 3};
  const auto wire = encoded(KeyExchangeBody{300, 5, bytes});
  CHECK(wire == std::vector<std::uint8_t>{0x41, 0x2c, 0x05, 1, 2, 3});
  auto decoded = udpx::decode_key_exchange(wire);
  REQUIRE(decoded);
  CHECK(decoded->acknowledged == 300);
  CHECK(decoded->offset == 5);
  CHECK(std::vector<std::uint8_t>(decoded->bytes.begin(), decoded->bytes.end()) == bytes);
  CHECK_FALSE(udpx::decode_key_exchange(std::vector<std::uint8_t>{0x41}));
}

TEST_CASE("A key exchange stream refuses acknowledgements of bytes never sent", "[udpx]") {
  KeyExchangeStream stream;
  stream.append(std::string("abc"));
  CHECK_FALSE(stream.on_body(KeyExchangeBody{4, 0, {}}, 0));
  const std::vector<std::uint8_t> one{7};
  CHECK_FALSE(stream.on_body(KeyExchangeBody{0, KeyExchangeStream::kMaxStreamBytes, one}, 0));
  CHECK(stream.on_body(KeyExchangeBody{3, 0, {}}, 0));
  CHECK(stream.all_acknowledged());
}

TEST_CASE("A key exchange stream resends what was not acknowledged, doubling its timeout",
          "[udpx]") {
  KeyExchangeStream stream;
  stream.append(text(3000, 1));
  CHECK(stream.has_due(0));
  CHECK(stream.next_body(1200, 0).bytes.size() == 1200);
  CHECK(stream.next_body(1200, 0).offset == 1200);
  CHECK(stream.next_body(1200, 0).bytes.size() == 600);
  CHECK_FALSE(stream.has_due(1000));
  CHECK(stream.next_wakeup(1000) == KeyExchangeStream::kFirstTimeout);
  // The first packet arrived, the rest did not: resend from byte 1200 after the timeout.
  CHECK(stream.on_body(KeyExchangeBody{1200, 0, {}}, 10'000));
  CHECK_FALSE(stream.has_due(10'000 + KeyExchangeStream::kFirstTimeout - 1));
  CHECK(stream.has_due(10'000 + KeyExchangeStream::kFirstTimeout));
  const auto again = stream.next_body(1200, 10'000 + KeyExchangeStream::kFirstTimeout);
  CHECK(again.offset == 1200);
  CHECK(stream.next_body(1200, 10'000 + KeyExchangeStream::kFirstTimeout).offset == 2400);
  CHECK(stream.next_wakeup(10'000 + KeyExchangeStream::kFirstTimeout) ==
        10'000 + 3 * KeyExchangeStream::kFirstTimeout);
  // Silence gives up after kMaxTimeouts.
  Microseconds now = 10'000 + KeyExchangeStream::kFirstTimeout;
  while (!stream.failed()) {
    now = stream.next_wakeup(now);
    (void)stream.next_body(1200, now);
    REQUIRE(now < 60'000'000);
  }
}

TEST_CASE("Two key exchange streams deliver their flights through loss, reordering and copies",
          "[udpx]") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 random(seed);
    KeyExchangeStream a;
    KeyExchangeStream b;
    const std::string a_sends = text(500, seed) + text(2500, seed + 100);
    const std::string b_sends = text(6000, seed + 200);
    a.append(a_sends);
    b.append(b_sends);
    std::string a_got;
    std::string b_got;
    struct InFlight {
      Microseconds arrives;
      bool to_b;
      std::vector<std::uint8_t> wire;
    };
    std::deque<InFlight> flight;
    Microseconds now = 0;
    auto send_from = [&](KeyExchangeStream& from, bool to_b) {
      while (from.has_due(now)) {
        const auto wire = encoded(from.next_body(1200, now));
        if (random() % 100 < 20) continue;  // 20 % lost
        const Microseconds delay = 20'000 + static_cast<Microseconds>(random() % 30'000);
        flight.push_back({now + delay, to_b, wire});
        if (random() % 100 < 5) flight.push_back({now + delay + 7'000, to_b, wire});
      }
    };
    while (a_got.size() < b_sends.size() || b_got.size() < a_sends.size() ||
           !a.all_acknowledged() || !b.all_acknowledged()) {
      REQUIRE_FALSE(a.failed());
      REQUIRE_FALSE(b.failed());
      send_from(a, true);
      send_from(b, false);
      Microseconds next = std::min(a.next_wakeup(now), b.next_wakeup(now));
      for (const auto& packet : flight) next = std::min(next, packet.arrives);
      now = std::max(now + 1, next);
      for (auto it = flight.begin(); it != flight.end();) {
        if (it->arrives > now) {
          ++it;
          continue;
        }
        auto body = udpx::decode_key_exchange(it->wire);
        REQUIRE(body);
        KeyExchangeStream& to = it->to_b ? b : a;
        REQUIRE(to.on_body(*body, now));
        (it->to_b ? b_got : a_got) += to.take_received();
        it = flight.erase(it);
      }
      REQUIRE(now < 120'000'000);
    }
    CHECK(b_got == a_sends);
    CHECK(a_got == b_sends);
  }
}
