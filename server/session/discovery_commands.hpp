// What a client asks before it does anything: NOOP SYST FEAT HELP LANG (RFC 959 §4.1.3, RFC 2389,
// RFC 2640 §4). Nothing of the session's own: FEAT answers from what the server offers, fixed
// when the session starts.
#pragma once

#include <string>

#include "server/session/session_replies.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

// What FEAT lists beyond the base features.
struct OfferedFeatures {
  bool gsi = false;   // AUTH GSSAPI, DCAU (a GSI host credential is loaded)
  bool tls = false;   // AUTH TLS, PBSZ, PROT (FTPS is configured)
  bool udpx = false;  // the UDPX data channel: with GSI, or where [udpx] allows it without
};

class DiscoveryCommands {
 public:
  DiscoveryCommands(OfferedFeatures offered, SessionReplies& replies);
  DiscoveryCommands(const DiscoveryCommands&) = delete;
  DiscoveryCommands& operator=(const DiscoveryCommands&) = delete;

  transport::awaitable<void> on_noop(const std::string& argument);
  transport::awaitable<void> on_syst(const std::string& argument);
  transport::awaitable<void> on_feat(const std::string& argument);
  transport::awaitable<void> on_help(const std::string& argument);
  transport::awaitable<void> on_lang(const std::string& argument);

 private:
  const OfferedFeatures offered_;
  SessionReplies& replies_;
};

}  // namespace gridftp::server
