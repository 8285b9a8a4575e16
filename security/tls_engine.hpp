// One TLS session over in-memory buffers: the single engine behind GSI ADAT tokens, wrapped
// control-channel lines, FTPS and every secured data stream. It never touches a socket; callers
// move bytes between the network side (what travels on the wire) and their sockets or tokens.
//
// The network side is an OpenSSL BIO pair with fixed rings, so memory per session is bounded and
// no TLS record costs an allocation; callers may read sockets straight into input_space() and
// write straight from pending_output().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"
#include "security/tls13_record_layer.hpp"

namespace gridftp::security {

enum class TlsErrc {
  HandshakeFailed = 1,  // the peer's certificate or the negotiation was refused
  PeerClosed,           // close_notify arrived: no more application data
  Fatal,                // a TLS protocol error after the handshake (bad MAC, bad record, ...)
  InputOverflow,        // more bytes fed than the input ring can hold before they are processed
};

const std::error_category& tls_category();
std::error_code make_error_code(TlsErrc e);

class TlsEngine {
 public:
  enum class Role { Client, Server };
  enum class Progress { Done, NeedInput };
  static constexpr std::size_t kDefaultRingBytes = std::size_t{256} * 1024;

  // `context` is shared: the engine takes its own reference.
  static Result<TlsEngine> create(SSL_CTX* context, Role role,
                                  std::size_t ring_bytes = kDefaultRingBytes);

  // --- network side ---
  // Space for received bytes (may be empty while the ring is full of unprocessed input).
  std::span<char> input_space();
  void commit_input(std::size_t bytes);
  // Copies `bytes` in; InputOverflow if they do not fit (tokens are small, so this means abuse).
  Result<void> feed(std::span<const char> bytes);
  // Bytes TLS wants sent, contiguous (call again after consume_output: the ring may wrap).
  std::span<const char> pending_output();
  void consume_output(std::size_t bytes);
  bool has_output();
  // Everything pending, for token-based transports (ADAT, ENC lines).
  std::string take_output();
  // Bytes received but not consumed by TLS: after a GSI "clear" data channel drops TLS, what
  // followed the last record is ordinary data.
  std::string take_unprocessed_input();

  // Before the handshake: the server's certificate must name `host` (a DNS name, or an IP
  // address matched against its IP entries); the handshake fails otherwise.
  Result<void> expect_host(const std::string& host);

  // Client side, before the handshake: offer to resume `session` (another connection's, from
  // resumable_session(); left as it is, so that any number of connections can resume it)
  // instead of a full handshake; the server may still decline. FTPS servers
  // such as vsftpd with require_ssl_reuse refuse data connections that do not resume the
  // control connection's session (RFC 4217 §10.2). Errors: an OpenSSL error.
  Result<void> resume(SSL_SESSION* session);
  // A reference to this connection's session when another connection can resume it, else null.
  // TLS 1.3 makes a session resumable only with the tickets that the server sends after the
  // handshake, so this is null until a read() has taken them in.
  SslSessionPtr resumable_session() const;
  // After the handshake: whether it resumed an earlier session.
  bool session_reused() const;

  // --- TLS side ---
  // After the handshake: hands the application records over from OpenSSL to our own TLS 1.3
  // record layer (security/tls13_record_layer), which seals and opens them without OpenSSL's
  // extra copies. Only where that is exactly equivalent on the wire: TLS 1.3 with an AEAD
  // suite, secrets captured (capture_tls13_traffic_secrets on the context), no session
  // tickets sent by us and nothing of OpenSSL's left unsent. Returns whether it took over;
  // afterwards every network-side and TLS-side call goes through the record layer, which seals
  // runs of records on `workers` when given (Tls13RecordLayer::use_workers).
  // Errors: an OpenSSL error deriving the keys.
  Result<bool> take_over_records(RecordWorkers* workers = nullptr);
  bool records_taken_over() const { return records_ != nullptr; }

  // Server side: send no TLS 1.3 session tickets on this connection (the context may).
  void issue_no_session_tickets();
  Result<Progress> handshake();
  bool handshake_done() const;
  // Plaintext accepted; 0 when the output ring is full (drain pending_output first).
  Result<std::size_t> write(std::span<const char> plain);
  // Plaintext produced; 0 when more input is needed (or output must be drained first).
  // PeerClosed once the peer has sent close_notify.
  Result<std::size_t> read(std::span<char> out);
  // Sends close_notify (queued on the network side).
  void shutdown();

  SSL* native() const { return ssl_.get(); }
  // After the handshake: "TLSv1.3", "TLS_AES_256_GCM_SHA384", whether records are encrypted.
  std::string protocol_version() const;
  std::string cipher_name() const;
  bool encrypts() const;
  // After the handshake: `out.size()` bytes of the session's exporter (RFC 8446 §7.5, RFC 5705)
  // for `label` and `context`; both ends get the same bytes, nobody else can. TLS 1.2 sessions
  // qualify only with the extended master secret (RFC 7627). Errors: TlsErrc::HandshakeFailed
  // before the handshake or without extended master secret; an OpenSSL error otherwise.
  Result<void> export_keying_material(std::string_view label, std::span<const std::uint8_t> context,
                                      std::span<std::uint8_t> out) const;
  // OpenSSL's reasons for the last failure, for logs and multi-line 530 replies.
  const std::string& last_error() const { return last_error_; }

 private:
  TlsEngine(SslPtr ssl, BioPtr network, std::size_t ring_bytes)
      : ssl_(std::move(ssl)), network_(std::move(network)), ring_bytes_(ring_bytes) {}
  std::error_code fail(TlsErrc code);
  std::error_code records_failed(const std::error_code& code);

  SslPtr ssl_;
  BioPtr network_;  // our end of the pair; SSL owns the other end
  std::size_t ring_bytes_;
  std::unique_ptr<Tls13RecordLayer> records_;  // set once take_over_records() succeeded
  std::string last_error_;
};

}  // namespace gridftp::security

template <>
struct std::is_error_code_enum<gridftp::security::TlsErrc> : std::true_type {};
