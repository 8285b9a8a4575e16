// Runs any security::Handshake (GSI/DCAU, FTPS TLS) on a connected socket: the one I/O loop for
// every handshake that travels on a socket, used by gridftpd and gridcp alike
// (docs/ARCHITECTURE.md, "Security"). Whole TLS records only are handed to the handshake, so bytes
// that follow its last record in the same read (PROT C data, or the first protected records) come
// back to the caller instead of vanishing into the engine.
//
// Timeout rule: the driver itself never waits on a clock. The caller guards the whole exchange
// with one watchdog that closes the socket (transport::Deadline on the server, run_with_timeout
// in gridcp); the pending read or write then fails and the caller reports its own timeout.
#pragma once

#include <array>
#include <string>

#include "protocol/core/result.hpp"
#include "security/handshake.hpp"
#include "security/tls_record_framing.hpp"
#include "transport/asio.hpp"
#include "transport/error_conversion.hpp"

namespace gridftp::transport {

namespace detail {
// Handshake flights are a few KB; one TLS record is at most ~18 KB.
inline constexpr std::size_t kHandshakeReadBytes = 32 * 1024;

template <typename Stream>
awaitable<Result<void>> send_flight(Stream& stream, std::string bytes) {
  if (bytes.empty()) co_return Result<void>{};
  boost::system::error_code ec;
  co_await asio::async_write(stream, asio::buffer(bytes), asio::redirect_error(use_awaitable, ec));
  if (ec) co_return make_error(to_error_code(ec));
  co_return Result<void>{};
}
}  // namespace detail

// Drives `handshake` to completion over `stream` (a TCP socket in both programs; tests use a
// socket pair); `initiator` speaks first. Returns the bytes received behind the handshake's
// last record. Errors: the handshake's (TlsErrc, GsiErrc, ...), Errc::BadReply for bytes that
// are not TLS records, TransportErrc::PeerClosed when the peer hangs up, and the stream's
// errors through to_error_code.
template <typename Stream>
awaitable<Result<std::string>> drive_handshake(Stream& stream, security::Handshake& handshake,
                                               bool initiator) {
  std::string pending;
  if (initiator) {
    auto hello = handshake.step({});
    if (!hello) co_return make_error(hello.error());
    auto sent = co_await detail::send_flight(stream, std::move(*hello));
    if (!sent) co_return make_error(sent.error());
  }
  std::array<char, detail::kHandshakeReadBytes> chunk{};
  while (!handshake.complete()) {
    auto length = security::first_tls_record_length(pending);
    if (!length) co_return make_error(length.error());
    if (!*length) {
      boost::system::error_code ec;
      const auto got = co_await stream.async_read_some(asio::buffer(chunk),
                                                       asio::redirect_error(use_awaitable, ec));
      if (ec) co_return make_error(to_error_code(ec));
      pending.append(chunk.data(), got);
      continue;
    }
    auto answer = handshake.step(std::string_view(pending).substr(0, **length));
    pending.erase(0, **length);
    if (!answer) {
      // An alert queued by the failure tells the peer why; losing it is harmless.
      co_await detail::send_flight(stream, handshake.engine().take_output());
      co_return make_error(answer.error());
    }
    auto sent = co_await detail::send_flight(stream, std::move(*answer));
    if (!sent) co_return make_error(sent.error());
  }
  co_return handshake.engine().take_unprocessed_input() + pending;
}

}  // namespace gridftp::transport
