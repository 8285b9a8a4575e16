// The byte pipe under a control connection. Plain TCP implements it now; a GSI channel (ENC/632
// wrapping, wire doc §5.3) or an FTPS one (RFC 4217) can slot in later without touching the
// reply and command logic above it. Not a data channel.
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "client/clock.hpp"
#include "protocol/core/result.hpp"

namespace gridftp::client {

class ControlChannel {
 public:
  virtual ~ControlChannel() = default;

  // Sends one command line; the channel adds CRLF (and any wrapping). Errors: timeout or the
  // transport's error.
  virtual Result<void> write_line(std::string_view line) = 0;
  // Reads plaintext reply bytes, at least one; 0 means the server closed the connection.
  // Errors: std::errc::timed_out after `timeout`, or the transport's error.
  virtual Result<std::size_t> read_some(std::span<char> buffer, Clock::duration timeout) = 0;
  // Numeric address of the server as connected ("127.0.0.1", "::1").
  virtual std::string peer_address() const = 0;
  virtual bool is_ipv6() const = 0;
  // Numeric address of our end, the one the server can connect back to for PORT/EPRT; empty
  // when the channel has no socket of its own (test doubles).
  virtual std::string local_address() const { return {}; }
  virtual void close() = 0;
};

}  // namespace gridftp::client
