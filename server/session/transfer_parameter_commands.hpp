// What the next transfers use: TYPE MODE STRU ALLO REST TREV and OPTS (RFC 959 §4.1.2, RFC 2389,
// RFC 3659 §5, GFD.20's OPTS RETR and TREV). Owns TransferSettings; the transfer commands read
// it when they start and use REST and ALLO up. A change of MODE empties the connection cache:
// cached MODE E connections cannot carry a stream-mode transfer.
#pragma once

#include <string>

#include "server/session/session_replies.hpp"
#include "server/session/stream_cache.hpp"
#include "server/session/transfer_settings.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

class TransferParameterCommands {
 public:
  TransferParameterCommands(StreamCache& cached_streams, SessionReplies& replies);
  TransferParameterCommands(const TransferParameterCommands&) = delete;
  TransferParameterCommands& operator=(const TransferParameterCommands&) = delete;

  TransferSettings& settings() { return settings_; }
  const TransferSettings& settings() const { return settings_; }

  transport::awaitable<void> on_type(const std::string& argument);
  transport::awaitable<void> on_mode(const std::string& argument);
  transport::awaitable<void> on_stru(const std::string& argument);
  transport::awaitable<void> on_allo(const std::string& argument);
  transport::awaitable<void> on_rest(const std::string& argument);
  transport::awaitable<void> on_trev(const std::string& argument);
  transport::awaitable<void> on_opts(const std::string& argument);

 private:
  StreamCache& cached_streams_;
  SessionReplies& replies_;
  TransferSettings settings_;
};

}  // namespace gridftp::server
