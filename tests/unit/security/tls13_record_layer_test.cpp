// Our TLS 1.3 record layer against OpenSSL's (the real peer every Globus server runs): after an
// ordinary handshake one end takes its records over (TlsEngine::take_over_records) and the
// other stays on OpenSSL. Whatever we seal OpenSSL must open, whatever OpenSSL seals we must
// open, in every suite our data contexts offer, through KeyUpdate, tickets, close_notify and
// damage; and where the take-over would not be exactly equivalent it must not happen.
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "security/tls_contexts.hpp"
#include "security/tls_engine.hpp"
#include "tests/unit/security/gsi_data_session.hpp"
#include "tests/unit/security/test_pki.hpp"
#include "transport/worker_pool.hpp"

namespace security = gridftp::security;
using security::TlsEngine;
using security::TlsErrc;
using security::testing::test_pki;

namespace {

using Session = security::testing::GsiDataSession;
using security::testing::make_gsi_data_session;
using security::testing::run_handshake;

std::string pattern(std::size_t bytes, unsigned seed) {
  std::string out(bytes, '\0');
  unsigned x = seed * 2654435761U + 1;
  for (auto& c : out) {
    x = x * 1103515245U + 12345U;
    c = static_cast<char>(x >> 16U);
  }
  return out;
}

// Runs jobs on the caller's thread in four lanes, the last lane first and each lane's jobs in
// increasing order (job i in lane i % 4), as the contract allows: a run whose records are not each
// placed and numbered by their own index, or whose lanes share a key copy, comes out wrong.
class ReversedWorkers final : public security::RecordWorkers {
 public:
  std::size_t width() const override { return kLanes; }
  void run(std::size_t count, const std::function<void(std::size_t, std::size_t)>& job) override {
    for (std::size_t lane = kLanes; lane > 0; --lane) {
      for (std::size_t i = lane - 1; i < count; i += kLanes) job(i, lane - 1);
    }
    ++runs;
  }
  int runs = 0;

 private:
  static constexpr std::size_t kLanes = 4;
};

// Who seals our records: the caller alone, real threads, or jobs out of order.
struct Sealing {
  std::string name;
  std::unique_ptr<security::RecordWorkers> workers;
};

Sealing make_sealing(int kind) {
  if (kind == 1)
    return {"a pool of 3 threads", std::make_unique<gridftp::transport::WorkerPool>(3)};
  if (kind == 2) return {"jobs in reverse order", std::make_unique<ReversedWorkers>()};
  return {"the caller only", nullptr};
}

// Moves what `from` has sealed into `to`, as far as `to` has room.
void carry(TlsEngine& from, TlsEngine& to) {
  for (auto out = from.pending_output(); !out.empty(); out = from.pending_output()) {
    const auto space = to.input_space();
    if (space.empty()) return;
    const auto n = std::min(space.size(), out.size());
    std::copy_n(out.data(), n, space.data());
    to.commit_input(n);
    from.consume_output(n);
  }
}

// Sends `data` from `from` to `to` and returns what `to` read, reading `read_bytes` at a time.
std::string send(TlsEngine& from, TlsEngine& to, const std::string& data,
                 std::size_t read_bytes = 1 << 20) {
  std::string got;
  std::string buffer(read_bytes, '\0');
  std::size_t sent = 0;
  for (int round = 0; round < 100000 && got.size() < data.size(); ++round) {
    if (sent < data.size()) {
      auto written = from.write(std::span<const char>(data).subspan(sent));
      REQUIRE(written);
      sent += *written;
    }
    carry(from, to);
    for (;;) {
      auto read = to.read(buffer);
      REQUIRE(read);
      if (*read == 0) break;
      got.append(buffer.data(), *read);
    }
  }
  return got;
}

}  // namespace

TEST_CASE("Records we seal and open interoperate with OpenSSL's in every data suite",
          "[tls][crypto]") {
  const char* suite =
      GENERATE("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
  const bool ours_is_client = GENERATE(true, false);
  const auto sealing = make_sealing(GENERATE(0, 1, 2));
  CAPTURE(suite, ours_is_client, sealing.name);
  auto s = make_gsi_data_session(suite);
  run_handshake(s);
  TlsEngine& ours = ours_is_client ? *s.client : *s.server;
  TlsEngine& theirs = ours_is_client ? *s.server : *s.client;
  auto taken = ours.take_over_records(sealing.workers.get());
  REQUIRE(taken);
  REQUIRE(*taken);
  CHECK(ours.records_taken_over());
  CHECK(ours.cipher_name() == suite);

  const auto outgoing = pattern(3 * 1024 * 1024 + 17, 1);
  CHECK(send(ours, theirs, outgoing) == outgoing);
  const auto incoming = pattern(2 * 1024 * 1024 + 5, 2);
  CHECK(send(theirs, ours, incoming) == incoming);
  // Small reads take the in-place path: a record's plaintext is handed out over many calls.
  const auto small = pattern(100 * 1000, 3);
  CHECK(send(theirs, ours, small, 777) == small);
  CHECK(send(ours, theirs, small, 777) == small);
  if (auto* reversed = dynamic_cast<ReversedWorkers*>(sealing.workers.get())) {
    CHECK(reversed->runs > 0);
  }
}

namespace {

// Feeds `wire` to `reader` and returns what it opened; stops at the first error, returned in
// `error`.
std::string open_all(security::Tls13RecordLayer& reader, const std::string& wire,
                     std::error_code& error) {
  std::string got;
  std::string buffer(1 << 20, '\0');
  for (std::size_t fed = 0; fed < wire.size();) {
    const auto space = reader.input_space();
    const auto n = std::min(space.size(), wire.size() - fed);
    std::copy_n(wire.data() + fed, n, space.data());
    reader.commit_input(n);
    fed += n;
    for (;;) {
      auto read = reader.read(buffer);
      if (!read) {
        error = read.error();
        return got;
      }
      if (*read == 0) break;
      got.append(buffer.data(), *read);
    }
  }
  return got;
}

// Writes `data` through `layer` in pieces of the given sizes (cycled) and returns the records.
std::string seal_all(security::Tls13RecordLayer& layer, const std::string& data,
                     const std::vector<std::size_t>& pieces) {
  std::string wire;
  std::size_t taken = 0;
  for (std::size_t i = 0; taken < data.size(); ++i) {
    const auto piece = std::span<const char>(data).subspan(taken).first(
        std::min(pieces[i % pieces.size()], data.size() - taken));
    for (std::size_t done = 0; done < piece.size();) {
      auto written = layer.write(piece.subspan(done));
      REQUIRE(written);
      done += *written;
      const auto out = layer.pending_output();
      wire.append(out.data(), out.size());
      layer.consume_output(out.size());
    }
    taken += piece.size();
  }
  return wire;
}

}  // namespace

TEST_CASE("Records sealed on workers are, byte for byte, those one thread seals", "[tls][crypto]") {
  using security::Tls13RecordLayer;
  const auto suite =
      GENERATE(security::Tls13Suite::Aes128GcmSha256, security::Tls13Suite::Aes256GcmSha384,
               security::Tls13Suite::Chacha20Poly1305Sha256);
  const std::size_t hash = suite == security::Tls13Suite::Aes256GcmSha384 ? 48 : 32;
  const std::vector<std::uint8_t> ours(hash, 0x5a);
  const std::vector<std::uint8_t> theirs(hash, 0xa5);
  auto serial = Tls13RecordLayer::create(suite, ours, theirs, 256 * 1024);
  auto parallel = Tls13RecordLayer::create(suite, ours, theirs, 256 * 1024);
  REQUIRE(serial);
  REQUIRE(parallel);
  gridftp::transport::WorkerPool pool(3);
  parallel->use_workers(&pool);
  const auto data = pattern(5 * 1024 * 1024 + 333, 9);
  const std::vector<std::size_t> pieces{1 << 20, 100000, 17, 300000, 16384 * 5};
  const auto wire = seal_all(*parallel, data, pieces);
  CHECK(wire == seal_all(*serial, data, pieces));

  auto reader = Tls13RecordLayer::create(suite, theirs, ours, 256 * 1024);
  REQUIRE(reader);
  std::error_code error;
  CHECK(open_all(*reader, wire, error) == data);
  CHECK_FALSE(error);
}

TEST_CASE("Runs opened on workers stop at a full-size control record and at a forged one",
          "[tls][crypto]") {
  using security::ContentType;
  using security::Tls13RecordCipher;
  const auto suite = security::Tls13Suite::Aes128GcmSha256;
  const std::vector<std::uint8_t> secret(32, 0x31);
  const std::vector<std::uint8_t> other(32, 0x13);
  auto sealer = Tls13RecordCipher::create(suite, secret, Tls13RecordCipher::Direction::Seal);
  REQUIRE(sealer);
  std::string wire;
  std::string expected;
  const auto seal = [&](ContentType type, const std::string& content) {
    std::string record(security::tls13_record_bytes(content.size()), '\0');
    REQUIRE(sealer->seal(type, content, record));
    wire += record;
    if (type == ContentType::ApplicationData) expected += content;
  };
  const auto full = [](unsigned seed) { return pattern(security::kTls13MaxPlaintextBytes, seed); };
  for (unsigned i = 0; i < 5; ++i) seal(ContentType::ApplicationData, full(i));
  // A full-size handshake record: a NewSessionTicket (skipped) and a KeyUpdate behind it, so
  // every record after it is under the next key and must be opened again one by one.
  std::string handshake(security::kTls13MaxPlaintextBytes, '\x5a');
  const std::size_t ticket = handshake.size() - 5 - 4;
  handshake[0] = 4;
  handshake[1] = static_cast<char>(ticket >> 16U);
  handshake[2] = static_cast<char>((ticket >> 8U) & 0xFFU);
  handshake[3] = static_cast<char>(ticket & 0xFFU);
  const std::string key_update{'\x18', '\0', '\0', '\x01', '\0'};
  handshake.replace(handshake.size() - 5, 5, key_update);
  seal(ContentType::Handshake, handshake);
  REQUIRE(sealer->update());
  for (unsigned i = 5; i < 17; ++i) seal(ContentType::ApplicationData, full(i));
  seal(ContentType::ApplicationData, "a short tail");

  ReversedWorkers workers;
  SECTION("a KeyUpdate in the middle of a run") {
    auto reader = security::Tls13RecordLayer::create(suite, other, secret, 256 * 1024);
    REQUIRE(reader);
    reader->use_workers(&workers);
    std::error_code error;
    CHECK(open_all(*reader, wire, error) == expected);
    CHECK_FALSE(error);
    CHECK(workers.runs > 0);
  }
  SECTION("a forged record in the middle of a run") {
    const std::size_t third = 2 * security::tls13_record_bytes(security::kTls13MaxPlaintextBytes);
    wire[third + 100] = static_cast<char>(wire[third + 100] ^ 0x01);
    auto reader = security::Tls13RecordLayer::create(suite, other, secret, 256 * 1024);
    REQUIRE(reader);
    reader->use_workers(&workers);
    std::error_code error;
    const auto got = open_all(*reader, wire, error);
    CHECK(error == TlsErrc::Fatal);
    CHECK(got == expected.substr(0, 2 * security::kTls13MaxPlaintextBytes));
    CHECK(reader->last_error() == "a forged or damaged record");
  }
}

TEST_CASE("A KeyUpdate from OpenSSL is followed, and answered when it asks", "[tls][crypto]") {
  auto s = make_gsi_data_session();
  run_handshake(s);
  const int request = GENERATE(SSL_KEY_UPDATE_REQUESTED, SSL_KEY_UPDATE_NOT_REQUESTED);
  // With workers, copies of the old key must be dropped once ours changes.
  const auto sealing = make_sealing(GENERATE(0, 2));
  CAPTURE(request, sealing.name);
  REQUIRE(*s.client->take_over_records(sealing.workers.get()));
  for (unsigned round = 0; round < 3; ++round) {
    REQUIRE(SSL_key_update(s.server->native(), request) == 1);
    const auto down = pattern(300000, round);
    CHECK(send(*s.server, *s.client, down) == down);
    // Our answer (when asked) goes first, under our old key; then data under the new one.
    const auto up = pattern(300000, round + 10);
    CHECK(send(*s.client, *s.server, up) == up);
  }
}

TEST_CASE("close_notify ends the stream both ways", "[tls][crypto]") {
  auto s = make_gsi_data_session();
  run_handshake(s);
  REQUIRE(*s.server->take_over_records());
  const auto data = pattern(40000, 4);
  REQUIRE(send(*s.server, *s.client, data) == data);
  s.server->shutdown();
  carry(*s.server, *s.client);
  std::string buffer(1024, '\0');
  auto read = s.client->read(buffer);
  REQUIRE_FALSE(read);
  CHECK(read.error() == TlsErrc::PeerClosed);
  // And OpenSSL's close_notify to us, after the data before it.
  REQUIRE(send(*s.client, *s.server, data) == data);
  s.client->shutdown();
  carry(*s.client, *s.server);
  read = s.server->read(buffer);
  REQUIRE_FALSE(read);
  CHECK(read.error() == TlsErrc::PeerClosed);
  // Nothing is sealed after our own close_notify.
  CHECK_FALSE(s.server->write(data));
}

TEST_CASE("A damaged record fails the stream and says why", "[tls][crypto]") {
  auto s = make_gsi_data_session();
  run_handshake(s);
  REQUIRE(*s.server->take_over_records());
  const auto data = pattern(5000, 5);
  REQUIRE(s.client->write(data));
  std::string wire = s.client->take_output();
  const std::size_t offset = GENERATE(std::size_t{0}, std::size_t{3}, std::size_t{10},
                                      std::size_t{4000});  // type, length, body, body
  CAPTURE(offset);
  wire[offset] = static_cast<char>(wire[offset] ^ 0x40);
  REQUIRE(s.server->feed(wire));
  std::string buffer(8192, '\0');
  auto read = s.server->read(buffer);
  REQUIRE_FALSE(read);
  CHECK(read.error() == TlsErrc::Fatal);
  CHECK_FALSE(s.server->last_error().empty());
  // The stream stays failed.
  CHECK_FALSE(s.server->read(buffer));
}

TEST_CASE("A record too short to hold a tag fails the stream", "[tls][crypto]") {
  auto s = make_gsi_data_session();
  run_handshake(s);
  REQUIRE(*s.server->take_over_records());
  const std::string tiny(std::string("\x17\x03\x03\x00\x03", 5) + "abc");
  REQUIRE(s.server->feed(tiny));
  std::string buffer(8192, '\0');
  auto read = s.server->read(buffer);
  REQUIRE_FALSE(read);
  CHECK(read.error() == TlsErrc::Fatal);
  CHECK(s.server->last_error() == "a record too short to be protected");
}

TEST_CASE(
    "Session tickets from an OpenSSL server are skipped; a server that sends them keeps "
    "OpenSSL's records",
    "[tls][crypto]") {
  auto s = make_gsi_data_session();
  SSL_clear_options(s.server->native(), SSL_OP_NO_TICKET);
  REQUIRE(SSL_set_num_tickets(s.server->native(), 2) == 1);
  run_handshake(s);
  auto server_taken = s.server->take_over_records();
  REQUIRE(server_taken);
  CHECK_FALSE(*server_taken);
  REQUIRE(*s.client->take_over_records());
  const auto data = pattern(100000, 6);
  CHECK(send(*s.server, *s.client, data) == data);
  CHECK(send(*s.client, *s.server, data) == data);
}

TEST_CASE("TLS 1.2 and contexts without captured secrets keep OpenSSL's records", "[tls][crypto]") {
  SECTION("TLS 1.2") {
    auto s = make_gsi_data_session();
    REQUIRE(SSL_set_max_proto_version(s.client->native(), TLS1_2_VERSION) == 1);
    run_handshake(s);
    CHECK_FALSE(*s.client->take_over_records());
    CHECK_FALSE(*s.server->take_over_records());
    const auto data = pattern(30000, 7);
    CHECK(send(*s.client, *s.server, data) == data);
  }
  SECTION("before the handshake") {
    auto s = make_gsi_data_session();
    CHECK_FALSE(*s.client->take_over_records());
  }
  SECTION("a control-channel context") {
    auto client_context = security::make_gsi_control_context(
        test_pki().user_proxy(), test_pki().trust_store(), security::TlsRole::Client);
    auto server_context = security::make_gsi_control_context(
        test_pki().user_proxy(), test_pki().trust_store(), security::TlsRole::Server);
    REQUIRE(client_context);
    REQUIRE(server_context);
    Session s;
    auto client = TlsEngine::create(client_context->get(), TlsEngine::Role::Client);
    auto server = TlsEngine::create(server_context->get(), TlsEngine::Role::Server);
    REQUIRE(client);
    REQUIRE(server);
    s.client.emplace(std::move(*client));
    s.server.emplace(std::move(*server));
    run_handshake(s);
    CHECK_FALSE(*s.client->take_over_records());
    CHECK_FALSE(*s.server->take_over_records());
  }
}
