// ControlChannel for gsiftp:// (docs/WIRE.md §5.3): clear text until the GSI exchange is done
// (greeting, AUTH GSSAPI, ADAT), then every command goes out as `ENC <base64 TLS record>` and
// every reply line arrives as `632 <base64>` (631 with a NULL cipher), unwrapped in order into
// plain reply text for the parser above. The exchange itself is gsi_authentication's job.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "client/session/control_channel.hpp"
#include "protocol/control/protected_reply_reader.hpp"
#include "security/tls_engine.hpp"

namespace gridftp::client {

class GsiControlChannel final : public LayeredControlChannel<ControlChannel> {
 public:
  explicit GsiControlChannel(std::unique_ptr<ControlChannel> inner);

  // From now on lines are wrapped and unwrapped with `engine`, whose GSI exchange completed.
  void start_protection(security::TlsEngine engine);
  bool is_protected() const { return engine_.has_value(); }

  // Errors: those of the inner channel; wrapping errors (TlsErrc) once protected.
  Result<void> write_line(std::string_view line) override;
  // Errors: those of the inner channel; protocol::control::ProtectedReplyReader's and
  // TlsErrc::Fatal for a line that does not unwrap (forged, replayed or out of order).
  Result<std::size_t> read_some(std::span<char> buffer, Clock::duration timeout) override;

 private:
  Result<void> unwrap_received(std::string_view bytes);

  std::optional<security::TlsEngine> engine_;
  protocol::control::ProtectedReplyReader reader_;
  std::string plain_;  // unwrapped reply text not yet handed out
};

}  // namespace gridftp::client
