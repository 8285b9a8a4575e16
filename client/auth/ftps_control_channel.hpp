// ControlChannel for ftps:// (RFC 4217 explicit FTPS): clear text until the server accepts
// AUTH TLS (234), then one TLS session over the same connection carries every command and reply.
// The session drives AUTH TLS and the handshake; this class only moves bytes, once protected
// through a transport::SocketStream over the connection and its DataLink (the byte-stream seam
// gridcp's data connections and gridftpd's use too).
#pragma once

#include <memory>
#include <string>

#include "client/session/control_channel.hpp"
#include "client/session/tcp_control_channel.hpp"
#include "security/tls_engine.hpp"
#include "transport/data_link.hpp"
#include "transport/socket_stream.hpp"

namespace gridftp::client {

class FtpsControlChannel final : public LayeredControlChannel<TcpControlChannel> {
 public:
  explicit FtpsControlChannel(std::unique_ptr<TcpControlChannel> inner);

  // Runs the TLS handshake over the connection with `engine` (client role, host expected)
  // through the shared handshake driver and data-link code; every line after it travels in TLS
  // records. Errors: TlsErrc::HandshakeFailed (with handshake_detail()), std::errc::timed_out,
  // socket errors, TransportErrc::PeerClosed if the server hangs up.
  Result<void> start_tls(security::TlsEngine engine, Clock::duration timeout);
  // OpenSSL's reasons when start_tls failed (e.g. "certificate verify failed: ...").
  const std::string& handshake_detail() const { return handshake_detail_; }
  // "TLSv1.3 TLS_AES_256_GCM_SHA384" once protected.
  std::string describe_tls() const;
  // The control connection's TLS session, for the data connections to resume (null before it
  // can be resumed: TLS 1.3 tickets arrive with the first replies read after the handshake).
  // Same thread as the reads.
  security::SslSessionPtr resumable_session() const { return link_.resumable_session(); }

  Result<void> write_line(std::string_view line) override;
  Result<std::size_t> read_some(std::span<char> buffer, Clock::duration timeout) override;

 private:
  transport::awaitable<Result<std::size_t>> read_once(std::span<char> buffer);
  transport::awaitable<Result<void>> write_once(std::string plain);

  transport::DataLink link_;
  transport::SocketStream stream_;  // over inner_'s socket and link_, declared after link_
  bool protected_ = false;
  std::string handshake_detail_;
};

}  // namespace gridftp::client
