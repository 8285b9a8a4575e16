// The GSI exchange between our initiator and our acceptor, entirely in memory: tokens are passed
// by hand exactly as ADAT/335 lines would carry them, for TLS 1.3 and 1.2, with and without
// delegation, plus the rejections (untrusted, expired, tampered, bad flag).
#include "security/gsi_handshake.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "security/tls_contexts.hpp"
#include "security/x509_identity.hpp"
#include "tests/unit/security/test_pki.hpp"

using namespace gridftp::security;
using gridftp::security::testing::test_pki;

namespace {

struct Pair {
  GsiHandshake initiator;
  GsiHandshake acceptor;
  int exchanges = 0;  // tokens the acceptor answered (ADAT lines)
};

SslCtxPtr control_context(const Credential& own, TlsRole role, int max_version = 0) {
  auto context = make_gsi_control_context(own, test_pki().trust_store(), role);
  REQUIRE(context);
  if (max_version != 0) SSL_CTX_set_max_proto_version(context->get(), max_version);
  return std::move(*context);
}

// Runs the exchange to the end (or the first error), as the control channel would.
gridftp::Result<void> run(Pair& pair) {
  auto token = pair.initiator.step({});
  if (!token) return gridftp::make_error(token.error());
  for (int round = 0; round < 10 && !(pair.initiator.complete() && pair.acceptor.complete());
       ++round) {
    auto reply = pair.acceptor.step(*token);
    if (!reply) return gridftp::make_error(reply.error());
    ++pair.exchanges;
    if (pair.acceptor.complete() && reply->empty()) break;  // 235 with no token
    token = pair.initiator.step(*reply);
    if (!token) return gridftp::make_error(token.error());
  }
  return {};
}

Pair make_pair(const Credential& client_cred, const Credential* delegate, int client_max = 0,
               bool ssl_compatible = false) {
  static auto server_ctx = control_context(test_pki().host(), TlsRole::Server);
  auto client_ctx = control_context(client_cred, TlsRole::Client, client_max);
  GsiOptions acceptor_options;
  acceptor_options.accept_delegation = true;
  acceptor_options.ssl_compatible = ssl_compatible;
  GsiOptions initiator_options;
  initiator_options.delegate_from = delegate;
  initiator_options.ssl_compatible = ssl_compatible;
  auto initiator =
      GsiHandshake::create(client_ctx.get(), GsiHandshake::Role::Client, initiator_options);
  auto acceptor =
      GsiHandshake::create(server_ctx.get(), GsiHandshake::Role::Server, acceptor_options);
  REQUIRE(initiator);
  REQUIRE(acceptor);
  return Pair{std::move(*initiator), std::move(*acceptor)};
}

}  // namespace

TEST_CASE("GSI exchange with delegation completes under TLS 1.3 and 1.2", "[security][gsi]") {
  const auto proxy = test_pki().user_proxy();
  for (const int version : {0, TLS1_2_VERSION}) {
    INFO("client max version " << version);
    auto pair = make_pair(proxy, &proxy, version);
    REQUIRE(run(pair));
    CHECK(pair.acceptor.complete());
    CHECK(pair.initiator.complete());
    CHECK(pair.acceptor.peer_identity() == "/O=Grid/OU=Test/CN=Test User");
    CHECK(pair.initiator.peer_identity() == "/O=Grid/OU=Test/CN=localhost");
    auto delegated = pair.acceptor.take_delegated_credential();
    REQUIRE(delegated.has_value());
    // The delegated proxy names the user, was signed by the user's proxy, and is limited.
    CHECK(identity(*delegated) == "/O=Grid/OU=Test/CN=Test User");
    CHECK(is_limited_proxy(delegated->cert.get()));
    CHECK(X509_check_private_key(delegated->cert.get(), delegated->key.get()) == 1);
    // TLS 1.3: hello, client flight, sync/flag, request/cert = 4 tokens; TLS 1.2 also 4.
    CHECK(pair.exchanges == 4);
  }
}

TEST_CASE("GSI exchange without delegation ends after the flag", "[security][gsi]") {
  const auto proxy = test_pki().user_proxy();
  auto pair = make_pair(proxy, nullptr);
  REQUIRE(run(pair));
  CHECK(pair.acceptor.complete());
  CHECK_FALSE(pair.acceptor.take_delegated_credential().has_value());
  CHECK(pair.exchanges == 3);
}

TEST_CASE("GSI control protection wraps and unwraps lines in order", "[security][gsi]") {
  const auto proxy = test_pki().user_proxy();
  auto pair = make_pair(proxy, nullptr);
  REQUIRE(run(pair));
  for (const std::string& line : std::vector<std::string>{"USER :globus-mapping:\r\n", "PASS \r\n",
                                                          std::string(3000, 'x') + "\r\n"}) {
    auto token = wrap_record(pair.initiator.engine(), line);
    REQUIRE(token);
    auto plain = unwrap_records(pair.acceptor.engine(), *token);
    REQUIRE(plain);
    CHECK(*plain == line);
  }
  // A replayed token is rejected: TLS sequence numbers moved on.
  auto token = wrap_record(pair.initiator.engine(), "PWD\r\n");
  REQUIRE(token);
  REQUIRE(unwrap_records(pair.acceptor.engine(), *token));
  CHECK_FALSE(unwrap_records(pair.acceptor.engine(), *token));
}

TEST_CASE("A tampered wrapped command fails verification", "[security][gsi]") {
  const auto proxy = test_pki().user_proxy();
  auto pair = make_pair(proxy, nullptr);
  REQUIRE(run(pair));
  auto token = wrap_record(pair.initiator.engine(), "RETR /etc/passwd\r\n");
  REQUIRE(token);
  (*token)[token->size() - 3] ^= 0x01;
  auto plain = unwrap_records(pair.acceptor.engine(), *token);
  CHECK_FALSE(plain);
}

TEST_CASE("A truncated token waits for the rest instead of failing", "[security][gsi]") {
  const auto proxy = test_pki().user_proxy();
  auto pair = make_pair(proxy, nullptr);
  auto hello = pair.initiator.step({});
  REQUIRE(hello);
  const std::string_view whole(*hello);
  auto first = pair.acceptor.step({whole.data(), 10});
  REQUIRE(first);
  CHECK(first->empty());
  auto rest = pair.acceptor.step({whole.data() + 10, whole.size() - 10});
  REQUIRE(rest);
  CHECK_FALSE(rest->empty());  // the server's flight
}

TEST_CASE("GSI acceptor rejects untrusted and expired peers", "[security][gsi]") {
  SECTION("untrusted CA") {
    const auto user = test_pki().untrusted_user();
    auto pair = make_pair(user, nullptr);
    const auto outcome = run(pair);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error() == TlsErrc::HandshakeFailed);
    CHECK(pair.acceptor.engine().last_error().find("certificate") != std::string::npos);
  }
  SECTION("expired proxy") {
    const auto expired = test_pki().expired_user_proxy();
    auto pair = make_pair(expired, nullptr);
    const auto outcome = run(pair);
    REQUIRE_FALSE(outcome);
    CHECK(pair.acceptor.engine().last_error().find("expired") != std::string::npos);
  }
  SECTION("garbage instead of a ClientHello") {
    auto pair = make_pair(test_pki().user_proxy(), nullptr);
    const std::string garbage(200, 'G');
    CHECK_FALSE(pair.acceptor.step(garbage));
  }
}

TEST_CASE("GSI acceptor refuses a flag other than D or 0", "[security][gsi]") {
  // Drive an SSL-level exchange by hand and send 'X' as the flag.
  const auto proxy = test_pki().user_proxy();
  auto pair = make_pair(proxy, nullptr);
  auto token = pair.initiator.step({});
  REQUIRE(token);
  auto reply = pair.acceptor.step(*token);  // server flight
  REQUIRE(reply);
  // Feed the server flight to the initiator's engine directly so it does not send its own flag.
  auto& client = pair.initiator.engine();
  REQUIRE(client.feed(*reply));
  REQUIRE(client.handshake());
  auto finished = client.take_output();
  auto sync = pair.acceptor.step(finished);  // TLS 1.3: the sync byte
  REQUIRE(sync);
  REQUIRE(unwrap_records(client, *sync));
  auto bad_flag = wrap_record(client, "X");
  REQUIRE(bad_flag);
  auto outcome = pair.acceptor.step(*bad_flag);
  REQUIRE_FALSE(outcome);
  CHECK(outcome.error() == GsiErrc::BadFlag);
}

TEST_CASE("SSL-compatible contexts (PROT S/P data channels) send no GSI bytes", "[security][gsi]") {
  const auto proxy = test_pki().user_proxy();
  auto pair = make_pair(proxy, nullptr, 0, true);
  REQUIRE(run(pair));
  CHECK(pair.acceptor.complete());
  CHECK(pair.initiator.complete());
  // Application data flows straight away.
  auto token = wrap_record(pair.initiator.engine(), "payload");
  REQUIRE(token);
  auto plain = unwrap_records(pair.acceptor.engine(), *token);
  REQUIRE(plain);
  CHECK(*plain == "payload");
}
