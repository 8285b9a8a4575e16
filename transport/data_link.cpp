#include "transport/data_link.hpp"

#include <algorithm>
#include <cstring>

#include "transport/file_send.hpp"
#include "transport/handshake_driver.hpp"
#include "transport/worker_pool.hpp"

namespace gridftp::transport {

awaitable<Result<void>> DataLink::handshake(tcp::socket& socket,
                                            std::unique_ptr<security::Handshake> handshake,
                                            bool initiator, bool keep_tls) {
  auto leftover = co_await drive_handshake(socket, *handshake, initiator);
  if (!leftover) {
    failure_detail_ = handshake->engine().last_error();
    co_return make_error(leftover.error());
  }
  peer_identity_ = handshake->peer_identity();
  description_ = handshake->engine().protocol_version() + " " + handshake->engine().cipher_name();
  if (handshake->engine().session_reused()) description_ += " resumed";
  if (!keep_tls) {
    pending_ = std::move(*leftover);
    description_ = "clear after " + description_;
    co_return Result<void>{};
  }
  // Our own TLS 1.3 record layer seals and opens the data from here where it can (TlsEngine::
  // take_over_records), sealing runs of records on the process's workers so that one stream is
  // not held to one core; the records on the wire are the same either way.
  auto taken = handshake->engine().take_over_records(&WorkerPool::for_records());
  if (!taken) {
    failure_detail_ = taken.error().message();
    co_return make_error(taken.error());
  }
  if (*taken) description_ += " own-record-layer";
  // Records that arrived with the last handshake flight are the first data.
  if (auto fed = handshake->engine().feed(*leftover); !fed) co_return make_error(fed.error());
  tls_ = std::move(handshake);
  co_return Result<void>{};
}

std::string DataLink::describe() const { return description_; }

security::SslSessionPtr DataLink::resumable_session() const {
  return tls_ ? tls_->engine().resumable_session() : nullptr;
}

awaitable<void> DataLink::finish(tcp::socket& socket, boost::system::error_code& ec) {
  ec.clear();
  if (!tls_) co_return;
  tls_->engine().shutdown();
  co_await flush(socket, ec);
}

awaitable<void> DataLink::flush(tcp::socket& socket, boost::system::error_code& ec, bool more) {
  auto& engine = tls_->engine();
  for (auto chunk = engine.pending_output(); !chunk.empty() && !ec;
       chunk = engine.pending_output()) {
    // One send for all of it where the socket has room (asio::async_write would cut it into
    // 64 KiB sends, each ending in a segment of a few dozen bytes on loopback's 64 KiB MSS).
    co_await async_send_all(socket, chunk, more, ec);
    if (!ec) engine.consume_output(chunk.size());
  }
}

awaitable<std::size_t> DataLink::read_some(tcp::socket& socket, std::span<char> out,
                                           boost::system::error_code& ec) {
  ec.clear();
  if (!pending_.empty()) {
    const auto n = std::min(out.size(), pending_.size());
    std::memcpy(out.data(), pending_.data(), n);
    pending_.erase(0, n);
    co_return n;
  }
  if (!tls_)
    co_return co_await socket.async_read_some(asio::buffer(out.data(), out.size()),
                                              asio::redirect_error(use_awaitable, ec));
  auto& engine = tls_->engine();
  std::size_t total = 0;
  for (;;) {
    // SSL_read yields one record (16 KiB at most) per call: take every record already here, so
    // the caller handles one large piece (one pwrite, one decoder pass) instead of many small.
    for (;;) {
      auto got = engine.read(out.subspan(total));
      if (!got) {
        if (total > 0) co_return total;  // the error surfaces on the next call
        // close_notify is a clean end; anything else is a forged or broken record.
        ec = got.error() == security::TlsErrc::PeerClosed
                 ? asio::error::eof
                 : asio::error::make_error_code(asio::error::connection_aborted);
        co_return 0;
      }
      total += *got;
      if (*got == 0 || total == out.size()) break;
    }
    if (total == out.size()) co_return total;
    if (total > 0) {
      // The ring holds a few records' worth; bytes that arrived behind them are taken too,
      // without waiting, so `out` fills as a clear link's read would and the caller's per-piece
      // work (a hand-off to the disk writer) is not paid per ring.
      if (!take_arrived(socket)) co_return total;
      continue;
    }
    co_await flush(socket, ec);  // a TLS 1.3 key update may need an answer
    if (ec) co_return 0;
    const auto space = engine.input_space();
    const auto n = co_await socket.async_read_some(asio::buffer(space.data(), space.size()),
                                                   asio::redirect_error(use_awaitable, ec));
    if (ec) co_return 0;
    engine.commit_input(n);
  }
}

bool DataLink::take_arrived(tcp::socket& socket) {
  auto& engine = tls_->engine();
  boost::system::error_code ec;
  if (socket.available(ec) == 0 || ec) return false;
  const auto space = engine.input_space();
  if (space.empty()) return false;
  // Bytes are waiting, so this read returns at once. Were it to fail, the socket would report
  // the same condition to the next read_some's wait.
  const auto n = socket.read_some(asio::buffer(space.data(), space.size()), ec);
  if (ec) return false;
  engine.commit_input(n);
  return n > 0;
}

awaitable<void> DataLink::write_all(tcp::socket& socket, std::span<const char> bytes,
                                    boost::system::error_code& ec, bool more) {
  ec.clear();
  if (!tls_) {
    co_await async_send_all(socket, bytes, more, ec);
    co_return;
  }
  auto& engine = tls_->engine();
  while (!bytes.empty() && !ec) {
    // Each write() seals one record; fill the output ring before sending, so one send carries
    // many records rather than a syscall (and often a wake-up of the peer) per 16 KiB.
    std::size_t sealed = 0;
    for (;;) {
      auto written = engine.write(bytes.subspan(sealed));
      if (!written) {
        ec = asio::error::make_error_code(asio::error::connection_aborted);
        co_return;
      }
      sealed += *written;
      if (*written == 0 || sealed == bytes.size()) break;
    }
    bytes = bytes.subspan(sealed);
    // MSG_MORE while more of this write follows at once: the last segment of a send waits to be
    // filled by the next instead of leaving short.
    if (!more || !bytes.empty()) co_await flush(socket, ec, !bytes.empty());
  }
}

}  // namespace gridftp::transport
