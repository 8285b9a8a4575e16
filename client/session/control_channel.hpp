// The byte pipe under a control connection: plain TCP, a GSI channel over it (ENC/632 wrapping,
// docs/WIRE.md §5.3) or an FTPS one (RFC 4217 TLS), without the reply and command logic above
// knowing which. Not a data channel.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
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

// A channel that adds a layer (GSI wrapping, FTPS TLS) over another: the connection's facts and
// its closing are the inner channel's.
template <typename Inner>
class LayeredControlChannel : public ControlChannel {
 public:
  explicit LayeredControlChannel(std::unique_ptr<Inner> inner) : inner_(std::move(inner)) {}
  std::string peer_address() const override { return inner_->peer_address(); }
  bool is_ipv6() const override { return inner_->is_ipv6(); }
  std::string local_address() const override { return inner_->local_address(); }
  void close() override { inner_->close(); }

 protected:
  std::unique_ptr<Inner> inner_;
};

}  // namespace gridftp::client
