// One secured-or-clear connection as a byte stream: plain TCP, or TLS records over it (PROT S/P,
// FTPS), after the handshake that DCAU A/S or FTPS runs first (docs/WIRE.md §5.7). gridftpd's MODE
// E and stream-mode data connections, gridcp's data connections and gridcp's FTPS control
// connection all read and write through it; clear links keep sendfile available.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "protocol/core/result.hpp"
#include "security/handshake.hpp"
#include "transport/asio.hpp"

namespace gridftp::transport {

class DataLink {
 public:
  DataLink() = default;

  // Runs `handshake` on `socket` through drive_handshake (`initiator`: the side that speaks
  // first, the TLS client). Without `keep_tls` (GSI PROT C) the TLS layer is dropped afterwards
  // and any bytes that followed the last handshake record become the first bytes read(); with
  // it every later byte is a TLS record. Errors: drive_handshake's.
  awaitable<Result<void>> handshake(tcp::socket& socket,
                                    std::unique_ptr<security::Handshake> handshake, bool initiator,
                                    bool keep_tls);

  bool is_clear() const { return tls_ == nullptr; }
  // The peer's identity after handshake() (empty on a link without DCAU).
  const std::string& peer_identity() const { return peer_identity_; }
  // "TLSv1.3 TLS_AES_256_GCM_SHA384", "... resumed" when the handshake resumed an earlier
  // session (FTPS data connections), "... own-record-layer" when our TLS 1.3 record layer
  // carries the data (TlsEngine::take_over_records), or "clear".
  std::string describe() const;
  // The TLS session of a link that keeps TLS, for another connection to resume
  // (TlsEngine::resumable_session); null on a clear link or before the session can be resumed.
  security::SslSessionPtr resumable_session() const;
  // After a failed handshake: OpenSSL's reasons, for logs and messages (empty if none).
  const std::string& failure_detail() const { return failure_detail_; }

  // Reads some bytes (decrypted when TLS), 0 never: end of stream is asio::error::eof in `ec`
  // (TCP FIN, or TLS close_notify); a broken record is connection_aborted.
  awaitable<std::size_t> read_some(tcp::socket& socket, std::span<char> out,
                                   boost::system::error_code& ec);
  // Writes all of `bytes` (encrypted when TLS). With `more`, data follows at once: a clear link
  // sends with MSG_MORE, and TLS records that fit the output ring wait there for the next
  // write_all (either way a block header joins its payload in one send).
  awaitable<void> write_all(tcp::socket& socket, std::span<const char> bytes,
                            boost::system::error_code& ec, bool more = false);
  // Ends a TLS link cleanly (close_notify) before the socket closes; stream mode's end of file.
  awaitable<void> finish(tcp::socket& socket, boost::system::error_code& ec);
  // Bytes a handshake left over for a clear link (taken by the caller that manages its own reads).
  std::string take_pending() { return std::exchange(pending_, {}); }

 private:
  // Sends every sealed record; `more`: data follows at once (MSG_MORE).
  awaitable<void> flush(tcp::socket& socket, boost::system::error_code& ec, bool more = false);
  // Reads into the TLS input ring what has already arrived on `socket`, never waiting; whether
  // it took any.
  bool take_arrived(tcp::socket& socket);

  std::unique_ptr<security::Handshake> tls_;  // kept only while TLS carries the data
  std::string pending_;
  std::string peer_identity_;
  std::string description_ = "clear";
  std::string failure_detail_;
};

}  // namespace gridftp::transport
