// One data connection's byte stream: a TCP socket, and on gsiftp with DCAU the GSI handshake
// that authenticates it (docs/WIRE.md §5.7). Under PROT S/P the bytes then travel in TLS records;
// under PROT C the handshake's TLS is dropped and bytes go raw on the same socket. Blocking
// calls with deadlines, one thread per socket (timed_io). Not a MODE E codec.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "client/clock.hpp"
#include "client/gsi_credentials.hpp"
#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"
#include "security/tls_engine.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

// An ftps:// session's data connections (RFC 4217 PROT P): plain TLS, we the client, the
// server's certificate checked against the trust anchors and the URL's host.
struct FtpsDataTls {
  security::SslCtxPtr context;
  std::string host;
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

  // Runs the GSI handshake on the connected socket when `security` is enabled (else does
  // nothing): the side that connected is the TLS client; both present our credential; no
  // delegation. DCAU A: the peer's identity must be our own (same_identity). Each read waits at
  // most `timeout`. Errors: TlsErrc/GsiErrc from the handshake, ClientErrc::DataPeerMismatch,
  // Errc::BadReply for bytes that are not TLS, std::errc::connection_reset when the peer
  // closes, timeouts and socket errors.
  Result<void> secure(const DataChannelSecurity& security, security::TlsRole role,
                      Clock::duration timeout);

  // At least one byte, or 0 at end of stream (TCP FIN, or TLS close_notify). Errors: socket
  // errors, std::errc::timed_out, TlsErrc::Fatal for a bad record.
  Result<std::size_t> read_some(std::span<char> buffer, Clock::duration timeout);
  // Errors: socket errors, std::errc::timed_out, TlsErrc.
  Result<void> write_all(std::string_view bytes, Clock::duration timeout);
  // The end of what we send: FTPS ends its TLS with close_notify before the FIN (RFC 4217
  // §9: a receiver can then tell a complete upload from a cut one); GSI data channels do not
  // (Globus sends none either). Errors: socket errors, std::errc::timed_out.
  Result<void> end_sending(Clock::duration timeout);
  // What the handshake failed on, beyond its code (OpenSSL's reasons); empty if nothing.
  const std::string& failure_detail() const { return failure_detail_; }

 private:
  Result<void> run_handshake(const DataChannelSecurity& security, security::TlsRole role,
                             Clock::duration timeout);
  Result<void> run_ftps_handshake(const FtpsDataTls& ftps, security::TlsRole role,
                                  Clock::duration timeout);
  Result<void> send_tls_output(Clock::duration timeout);
  Result<std::size_t> read_tls(std::span<char> buffer, Clock::duration timeout);

  transport::asio::io_context& io_;
  transport::tcp::socket socket_;
  std::optional<security::TlsEngine> engine_;  // PROT S/P after the handshake
  std::string unread_;  // raw bytes that arrived behind the handshake's last record (PROT C)
  std::string failure_detail_;
  bool sends_close_notify_ = false;  // FTPS
};

}  // namespace gridftp::client
