// How the next data connections are secured: DCAU (GFD.20 §3.6: who the data peer must be),
// PROT and PBSZ (RFC 2228 §3, RFC 4217 §9). Each reaches the session's ControlSecurity, whose
// exchange (AUTH GSSAPI/ADAT, or AUTH TLS) decides which levels exist, and empties the
// connection cache on a change: cached connections were set up under the old settings.
#pragma once

#include <string>

#include "server/session/control_security.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/stream_cache.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

class ProtectionCommands {
 public:
  ProtectionCommands(ControlSecurity& security, StreamCache& cached_streams,
                     SessionReplies& replies);
  ProtectionCommands(const ProtectionCommands&) = delete;
  ProtectionCommands& operator=(const ProtectionCommands&) = delete;

  transport::awaitable<void> on_pbsz(const std::string& argument);
  transport::awaitable<void> on_prot(const std::string& argument);
  transport::awaitable<void> on_dcau(const std::string& argument);
  // SITE STRIPE CRED <base64 piece> ... SITE STRIPE CRED END: in a mover's session, the
  // credential its frontend's client delegated, for DCAU on the mover's data connections
  // (docs/STRIPING.md). Refused in any other session.
  void on_site_stripe_cred(const std::string& argument);

 private:
  // A proxy with its chain is a few KB of PEM; anything far larger is no credential.
  static constexpr std::size_t kMaxCredentialText = std::size_t{64} * 1024;
  std::string pending_credential_;  // base64 pieces so far
  ControlSecurity& security_;
  StreamCache& cached_streams_;
  SessionReplies& replies_;
};

}  // namespace gridftp::server
