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

 private:
  ControlSecurity& security_;
  StreamCache& cached_streams_;
  SessionReplies& replies_;
};

}  // namespace gridftp::server
