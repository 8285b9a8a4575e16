// The one sans-I/O shape every security handshake has: bytes the peer sent go in, bytes to send
// back come out, until complete(). GSI (control tokens in ADAT, DCAU data connections) and plain
// TLS (FTPS control and data) implement it; transport/handshake_driver runs any of them on a
// socket, so server and client share one I/O loop with one timeout rule.
#pragma once

#include <span>
#include <string>

#include "protocol/core/result.hpp"
#include "security/tls_engine.hpp"

namespace gridftp::security {

class Handshake {
 public:
  virtual ~Handshake() = default;

  // Feeds what the peer sent (may be empty: the initiator's first call) and returns what to send
  // back, possibly nothing. A partial TLS record yields nothing until the rest arrives.
  // Errors: TlsErrc::HandshakeFailed, and each implementation's own.
  virtual Result<std::string> step(std::span<const char> input) = 0;
  virtual bool complete() const = 0;
  // The TLS session underneath: it carries the data afterwards (PROT S/P, FTPS).
  virtual TlsEngine& engine() = 0;
  // After complete(): the peer's identity (slash DN), empty where nobody was identified (FTPS).
  virtual const std::string& peer_identity() const = 0;
};

// Plain TLS (RFC 4217 FTPS): the handshake and nothing after it.
class TlsHandshake final : public Handshake {
 public:
  explicit TlsHandshake(TlsEngine engine) : engine_(std::move(engine)) {}

  Result<std::string> step(std::span<const char> input) override;
  bool complete() const override { return complete_; }
  TlsEngine& engine() override { return engine_; }
  const std::string& peer_identity() const override { return peer_identity_; }

 private:
  TlsEngine engine_;
  bool complete_ = false;
  std::string peer_identity_;  // FTPS clients present no certificate; servers are checked by host
};

}  // namespace gridftp::security
