// One data connection of gridcp: a TCP socket and the transport::DataLink gridftpd uses too (the
// DCAU or FTPS handshake, then clear bytes or TLS records; docs/WIRE.md §5.7). Its bytes go
// through the byte-stream seam (a transport::SocketStream, as gridftpd's data connections do),
// behind blocking calls with deadlines for gridcp's one-thread-per-socket model
// (run_with_timeout). Not a MODE E codec.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "client/auth/gsi_credentials.hpp"
#include "client/clock.hpp"
#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"
#include "transport/asio.hpp"
#include "transport/data_link.hpp"
#include "transport/socket_stream.hpp"

namespace gridftp::client {

// An ftps:// session's data connections (RFC 4217 PROT P): plain TLS, we the TLS client
// whichever side connected (RFC 4217 §7), the server's certificate checked against the trust
// anchors and the URL's host (unless --ftps-insecure), the control connection's session resumed
// (§10.2; vsftpd's require_ssl_reuse refuses data connections that do not).
struct FtpsDataTls {
  security::SslCtxPtr context;
  std::string host;
  bool check_host = true;
  security::SslSessionPtr control_session;  // null: a full handshake
};

// How data connections are secured: not at all (ftp://, DCAU N), DCAU A with `protection`
// (gsiftp://), or FTPS TLS.
struct DataChannelSecurity {
  std::shared_ptr<const GsiCredentials> credentials;  // null: no data-channel authentication
  security::DataProtection protection = security::DataProtection::Clear;
  std::shared_ptr<const FtpsDataTls> ftps;  // set for ftps://
  bool is_enabled() const { return credentials != nullptr || ftps != nullptr; }
};

class DataSocket {
 public:
  explicit DataSocket(transport::asio::io_context& io);
  DataSocket(const DataSocket&) = delete;
  DataSocket& operator=(const DataSocket&) = delete;

  transport::tcp::socket& socket() { return socket_; }

  // Runs the connection's handshake when `security` is enabled (else does nothing), through the
  // data-link code gridftpd uses: GSI for DCAU (`role`: the side that connected is the TLS
  // client; both present our credential; no delegation; DCAU A: the peer must hold our own
  // identity), or FTPS TLS (we the TLS client whatever `role`, FtpsDataTls). The whole exchange
  // gets `timeout`. Errors: TlsErrc/GsiErrc from the handshake,
  // ClientErrc::DataPeerMismatch, Errc::BadReply for bytes that are not TLS,
  // TransportErrc::PeerClosed when the peer hangs up, std::errc::timed_out, socket errors.
  Result<void> secure(const DataChannelSecurity& security, security::TlsRole role,
                      Clock::duration timeout);

  // At least one byte, or 0 at end of stream (TCP FIN, or TLS close_notify). Errors: socket
  // errors, std::errc::timed_out, a broken TLS record as connection_aborted.
  Result<std::size_t> read_some(std::span<char> buffer, Clock::duration timeout);
  // Errors: socket errors, std::errc::timed_out.
  Result<void> write_all(std::string_view bytes, Clock::duration timeout);
  // A clear link only (is_clear()): `header` with MSG_MORE, then `count` bytes of file `fd` from
  // `offset` with sendfile(2), no copy through gridcp's memory, as gridftpd sends its blocks.
  // Returns the file bytes sent, fewer than `count` when the file ended. The header has gone out
  // even on std::errc::operation_not_supported (the file cannot be spliced): the caller then
  // owes the payload, read and written.
  // Errors: socket errors, std::errc::timed_out.
  Result<std::size_t> send_file_range(std::span<const char> header, int fd, std::uint64_t offset,
                                      std::size_t count, Clock::duration timeout);
  bool is_clear() const { return link_.is_clear(); }
  // The end of what we send: FTPS ends its TLS with close_notify before the FIN (RFC 4217
  // §9: a receiver can then tell a complete upload from a cut one); GSI data channels do not
  // (Globus sends none either). Errors: socket errors, std::errc::timed_out.
  Result<void> end_sending(Clock::duration timeout);
  // What the handshake failed on, beyond its code (OpenSSL's reasons); empty if nothing.
  const std::string& failure_detail() const { return failure_detail_; }

 private:
  transport::awaitable<Result<std::size_t>> read_once(std::span<char> buffer);
  transport::awaitable<Result<void>> write_once(std::string_view bytes);
  transport::awaitable<Result<std::size_t>> send_file_once(std::span<const char> header, int fd,
                                                           std::uint64_t offset, std::size_t count);
  transport::awaitable<Result<void>> finish_tls();

  transport::asio::io_context& io_;
  transport::tcp::socket socket_;
  transport::DataLink link_;
  transport::SocketStream stream_;  // over socket_ and link_, declared after them
  std::string failure_detail_;
  bool sends_close_notify_ = false;  // FTPS
};

}  // namespace gridftp::client
