// The GSI security-context exchange (Globus's GSSAPI mechanism: TLS with X.509 proxies), as
// initiator or acceptor, over a TlsEngine. The same object serves the control channel (tokens
// in ADAT lines) and each data connection (bytes on a socket): callers feed what the peer sent
// and send back what step() returns, until complete().
//
// After the TLS handshake, GSI adds the "post-handshake rule" (docs/WIRE.md §5.1): if the acceptor
// has nothing left to send it writes one application byte 0x00, which the initiator reads and
// drops; then the initiator writes a flag byte, 'D' (delegation follows) or '0'. On 'D' the
// acceptor sends a DER certificate request and the initiator answers with a DER proxy certificate
// signed over it (§5.2). Data channels under PROT S/P skip all of it ("SSL-compatible" contexts).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"
#include "security/credential.hpp"
#include "security/delegation.hpp"
#include "security/handshake.hpp"
#include "security/key_pool.hpp"
#include "security/tls_engine.hpp"

namespace gridftp::security {

enum class GsiErrc {
  BadFlag = 1,  // the delegation flag byte was neither 'D' nor '0' (or 'D' where not allowed)
  DelegationTooLarge,  // a delegation message beyond any sane size
  NoPeerCertificate,   // the handshake ended without a verified peer chain
};

const std::error_category& gsi_category();
std::error_code make_error_code(GsiErrc e);

struct GsiOptions {
  // Data channels under PROT S/P: plain TLS, no sync byte, no flag.
  bool ssl_compatible = false;
  // Acceptor: accept 'D' and take a delegated credential (the control channel).
  bool accept_delegation = false;
  // Initiator: delegate from this credential ('D'), or send '0' when null.
  const Credential* delegate_from = nullptr;
  // Off only for FTPS data channels, where clients present no certificate (RFC 4217).
  bool require_peer_certificate = true;
  // Initiator: sign a Globus limited proxy (what globus-url-copy does) rather than inheritAll.
  bool limited_delegation = true;
  // Acceptor: keys made ahead for the delegation request (null: made when the request is).
  KeyPool* delegation_keys = nullptr;
};

class GsiHandshake final : public Handshake {
 public:
  using Role = TlsEngine::Role;  // Client = initiator, Server = acceptor

  static Result<GsiHandshake> create(SSL_CTX* context, Role role, GsiOptions options);

  // Feeds what the peer sent (an ADAT token, or a socket read; may be empty to start the
  // initiator) and returns what to send back, possibly nothing. A partial record simply yields
  // nothing until the rest arrives.
  Result<std::string> step(std::span<const char> input) override;
  bool complete() const override { return state_ == State::Complete; }

  // After complete(): who the peer is (slash DN of its end-entity certificate), the peer's chain,
  // and the credential it delegated, if it did.
  const std::string& peer_identity() const override { return peer_identity_; }
  X509* peer_certificate() const;
  STACK_OF(X509) * peer_chain() const;
  std::optional<Credential> take_delegated_credential();

  TlsEngine& engine() override { return engine_; }

 private:
  enum class State { Handshake, AwaitSync, AwaitFlag, AwaitRequest, AwaitDelegatedCert, Complete };

  GsiHandshake(TlsEngine engine, Role role, GsiOptions options)
      : engine_(std::move(engine)), role_(role), options_(options) {}
  Result<void> on_handshake_done();
  Result<void> advance();
  Result<void> write_all(std::span<const char> bytes);
  Result<void> read_available();
  Result<std::optional<char>> read_one_byte();
  Result<bool> take_der_message(std::vector<unsigned char>& message);
  Result<void> send_flag();

  TlsEngine engine_;
  Role role_;
  GsiOptions options_;
  State state_ = State::Handshake;
  std::string peer_identity_;
  std::vector<unsigned char> received_;  // application bytes not consumed yet
  std::optional<DelegationRequest> request_;
  std::optional<Credential> delegated_;
};

// Control-channel protection after 235 (docs/WIRE.md §5.3): each command and each reply line is one
// TLS application record, base64 in ENC/MIC and 631/632 lines. These work on any completed engine.
Result<std::string> wrap_record(TlsEngine& engine, std::string_view plain);
Result<std::string> unwrap_records(TlsEngine& engine, std::span<const char> token);

}  // namespace gridftp::security

template <>
struct std::is_error_code_enum<gridftp::security::GsiErrc> : std::true_type {};
