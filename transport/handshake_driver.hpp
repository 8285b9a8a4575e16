// Runs any security::Handshake (GSI/DCAU, FTPS TLS) on a connected socket or any ByteStream (the
// control channel's, AUTH TLS): the one I/O loop for every handshake that travels on a
// connection, used by gridftpd and gridcp alike
// (docs/ARCHITECTURE.md, "Security"). Whole TLS records only are handed to the handshake, so bytes
// that follow its last record in the same read (PROT C data, or the first protected records) come
// back to the caller instead of vanishing into the engine.
//
// Timeout rule: the driver itself never waits on a clock. The caller guards the whole exchange
// with one watchdog that closes the socket (transport::Deadline on the server, run_with_timeout
// in gridcp); the pending read or write then fails and the caller reports its own timeout.
#pragma once

#include <array>
#include <span>
#include <string>
#include <type_traits>

#include "protocol/core/result.hpp"
#include "security/handshake.hpp"
#include "security/tls_record_framing.hpp"
#include "transport/asio.hpp"
#include "transport/byte_stream.hpp"
#include "transport/error_conversion.hpp"

namespace gridftp::transport {

namespace detail {
// Handshake flights are a few KB; one TLS record is at most ~18 KB.
inline constexpr std::size_t kHandshakeReadBytes = std::size_t{32} * 1024;

template <typename Stream>
inline constexpr bool kIsByteStream = std::is_base_of_v<ByteStream, Stream>;

template <typename Stream>
awaitable<Result<void>> send_flight(Stream& stream, std::string bytes) {
  if (bytes.empty()) co_return Result<void>{};
  if constexpr (kIsByteStream<Stream>) {
    std::error_code ec;
    co_await static_cast<ByteStream&>(stream).write_all(bytes, ec);
    if (ec) co_return make_error(ec);
  } else {
    boost::system::error_code ec;
    co_await asio::async_write(stream, asio::buffer(bytes),
                               asio::redirect_error(use_awaitable, ec));
    if (ec) co_return make_error(to_error_code(ec));
  }
  co_return Result<void>{};
}

// Some bytes into `out`; a peer that ends the stream here hung up mid-handshake (PeerClosed).
template <typename Stream>
awaitable<Result<std::size_t>> receive_some(Stream& stream, std::span<char> out) {
  if constexpr (kIsByteStream<Stream>) {
    std::error_code ec;
    const auto got = co_await static_cast<ByteStream&>(stream).read_some(out, ec);
    if (ec == TransportErrc::EndOfStream) co_return make_error(TransportErrc::PeerClosed);
    if (ec) co_return make_error(ec);
    co_return got;
  } else {
    boost::system::error_code ec;
    const auto got = co_await stream.async_read_some(asio::buffer(out.data(), out.size()),
                                                     asio::redirect_error(use_awaitable, ec));
    if (ec) co_return make_error(to_error_code(ec));
    co_return got;
  }
}
}  // namespace detail

// Drives `handshake` to completion over `stream` (a TCP socket, or a ByteStream such as the
// control channel's; tests use a socket pair or a memory stream); `initiator` speaks first. Returns
// the bytes received behind the handshake's last record. Errors: the handshake's (TlsErrc, GsiErrc,
// ...), Errc::BadReply for bytes that are not TLS records, TransportErrc::PeerClosed when the peer
// hangs up, and the stream's errors through to_error_code.
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
      auto got = co_await detail::receive_some(stream, chunk);
      if (!got) co_return make_error(got.error());
      pending.append(chunk.data(), *got);
      continue;
    }
    auto answer = handshake.step(std::string_view(pending).substr(0, **length));
    pending.erase(0, **length);
    if (!answer) {
      // An alert queued by the failure tells the peer why; losing it is harmless.
      static_cast<void>(co_await detail::send_flight(stream, handshake.engine().take_output()));
      co_return make_error(answer.error());
    }
    auto sent = co_await detail::send_flight(stream, std::move(*answer));
    if (!sent) co_return make_error(sent.error());
  }
  co_return handshake.engine().take_unprocessed_input() + pending;
}

}  // namespace gridftp::transport
