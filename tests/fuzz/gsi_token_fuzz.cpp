// GSI tokens as the server takes them: ADAT tokens fed to the acceptor's handshake (TLS records,
// the sync byte, the delegation flag and messages), and ENC/MIC tokens unwrapped on a control
// channel whose handshake completed. Credentials come from the throwaway PKI that run_fuzzers.sh
// makes (tests/support/test_pki.py) and names in GRIDFTP_FUZZ_PKI.
//
// The first byte picks the case: even, the rest is ADAT tokens for a fresh acceptor, each
// prefixed by one length byte; odd, a real handshake is completed in memory, then a record the
// client wraps around the rest must unwrap to the same bytes, and the next record with one byte
// flipped must yield nothing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "security/credential.hpp"
#include "security/gsi_handshake.hpp"
#include "security/tls_contexts.hpp"
#include "security/trust_store.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace sec = gridftp::security;

struct Contexts {
  sec::SslCtxPtr acceptor;
  sec::SslCtxPtr initiator;
};

Contexts* contexts = nullptr;

[[noreturn]] void setup_failed(const std::string& what) {
  std::fprintf(stderr, "gsi_token fuzz set-up: %s\n", what.c_str());
  std::exit(1);
}

// Runs both sides until the initiator's handshake completes; false if it cannot.
bool complete_handshake(sec::GsiHandshake& client, sec::GsiHandshake& server) {
  std::string to_server;
  auto first = client.step({});
  if (!first) return false;
  to_server = std::move(*first);
  for (int round = 0; round < 16 && !(client.complete() && server.complete()); ++round) {
    auto to_client = server.step(to_server);
    if (!to_client) return false;
    auto next = client.step(*to_client);
    if (!next) return false;
    to_server = std::move(*next);
  }
  return client.complete() && server.complete();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* pki = std::getenv("GRIDFTP_FUZZ_PKI");
  if (pki == nullptr) setup_failed("GRIDFTP_FUZZ_PKI is not set (run_fuzzers.sh makes the PKI)");
  const std::string base = pki;
  auto host = sec::load_credential(base + "/host/cert.pem", base + "/host/key.pem");
  auto user = sec::load_proxy_file(base + "/users/test/proxy.pem");
  auto trust = sec::load_trust_store(base + "/certificates");
  if (!host || !user || !trust) setup_failed("cannot load the PKI under " + base);
  auto acceptor = sec::make_gsi_control_context(*host, trust->get(), sec::TlsRole::Server);
  auto initiator = sec::make_gsi_control_context(*user, trust->get(), sec::TlsRole::Client);
  if (!acceptor || !initiator) setup_failed("cannot make the TLS contexts");
  contexts = new Contexts{std::move(*acceptor), std::move(*initiator)};
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto rest = gridftp::fuzz::as_text(data + 1, size - 1);
  sec::GsiOptions acceptor_options;
  acceptor_options.accept_delegation = true;
  auto server = sec::GsiHandshake::create(contexts->acceptor.get(), sec::GsiHandshake::Role::Server,
                                          acceptor_options);
  FUZZ_CHECK(server.has_value());
  if ((data[0] & 1) == 0) {
    // ADAT tokens from a client we do not trust to be well-formed.
    std::size_t at = 0;
    while (at < rest.size() && !server->complete()) {
      const std::size_t length = static_cast<unsigned char>(rest[at++]);
      const auto token = rest.substr(at, length);
      at += token.size();
      if (!server->step(token)) break;  // refused: the session answers 535 and stops
    }
    // A handshake fed only our bytes cannot have authenticated anyone.
    FUZZ_CHECK(!server->complete());
    return 0;
  }
  auto client = sec::GsiHandshake::create(contexts->initiator.get(),
                                          sec::GsiHandshake::Role::Client, sec::GsiOptions{});
  FUZZ_CHECK(client.has_value());
  FUZZ_CHECK(complete_handshake(*client, *server));
  if (rest.empty()) return 0;
  // ENC/MIC: what the client wraps unwraps to the same bytes...
  auto wrapped = sec::wrap_record(client->engine(), rest);
  FUZZ_CHECK(wrapped.has_value());
  auto unwrapped = sec::unwrap_records(server->engine(), *wrapped);
  FUZZ_CHECK(unwrapped && *unwrapped == rest);
  // ...and the next record with any one byte changed yields nothing (an error, or nothing yet
  // when the change made the record look longer).
  auto next = sec::wrap_record(client->engine(), rest);
  FUZZ_CHECK(next.has_value());
  (*next)[data[0] % next->size()] ^= static_cast<char>(0x01 | (data[0] >> 1));
  auto forged = sec::unwrap_records(server->engine(), *next);
  FUZZ_CHECK(!forged || forged->empty());
  return 0;
}
