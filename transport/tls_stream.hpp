// A ByteStream of TLS application data over another ByteStream: the FTPS control channel after
// AUTH TLS (RFC 4217) on gridftpd's TcpStream, or on a MemoryStream in tests. The handshake runs
// before (drive_handshake over the inner stream); this takes the finished engine and the bytes
// that arrived behind the handshake's last record, and from then on every read and write passes
// through the engine (docs/ARCHITECTURE.md, "The byte-stream seam").
//
// One reader and one writer may be pending at once on one strand, as on any ByteStream: what TLS
// must send unasked (a TLS 1.3 KeyUpdate answer) goes out from read_some only while no write is
// pending, and otherwise with that write.
#pragma once

#include <memory>
#include <string>

#include "security/tls_engine.hpp"
#include "transport/byte_stream.hpp"

namespace gridftp::transport {

class TlsStream final : public ByteStream {
 public:
  // `engine`: handshake done. `received`: bytes read from `inner` and not yet given to it.
  TlsStream(std::unique_ptr<ByteStream> inner, security::TlsEngine engine, std::string received);

  asio::any_io_executor get_executor() override { return inner_->get_executor(); }
  // EndOfStream once the peer's close_notify (or the inner stream's end) arrived; a broken
  // record fails with the engine's TlsErrc (last_error() says more).
  awaitable<std::size_t> read_some(std::span<char> out, std::error_code& ec) override;
  awaitable<void> write_all(std::span<const char> bytes, std::error_code& ec,
                            bool more = false) override;
  // close_notify, then the inner stream's finish.
  awaitable<void> finish(std::error_code& ec) override;
  void close() override { inner_->close(); }
  bool peer_has_finished() override { return inner_->peer_has_finished(); }

  const security::TlsEngine& engine() const { return engine_; }
  const std::string& last_error() const { return engine_.last_error(); }

 private:
  // Moves every plaintext byte the engine holds into plain_; an error ends the stream.
  std::error_code decrypt_received();
  // Writes what the engine wants sent.
  awaitable<void> flush(std::error_code& ec);

  std::unique_ptr<ByteStream> inner_;
  security::TlsEngine engine_;
  std::string received_;  // inner bytes not yet fed to the engine
  std::string plain_;     // decrypted, not yet read
  bool writing_ = false;
  bool peer_closed_ = false;  // close_notify arrived
};

}  // namespace gridftp::transport
