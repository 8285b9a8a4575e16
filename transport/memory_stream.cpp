#include "transport/memory_stream.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "transport/error_conversion.hpp"

namespace gridftp::transport {

// One direction: bytes written and not yet read, and how the writing end left. The timer is a
// wake-up for a reader waiting on it (cancelled when something changes), never a timeout.
struct MemoryPipe {
  explicit MemoryPipe(const asio::any_io_executor& executor) : changed(executor) {}
  void wake() { changed.cancel(); }

  std::string bytes;
  bool writer_done = false;  // finish() or close() of the writing end
  bool reader_gone = false;  // close() of the reading end
  asio::steady_timer changed;
};

MemoryStream::MemoryStream(asio::any_io_executor executor, std::shared_ptr<MemoryPipe> in,
                           std::shared_ptr<MemoryPipe> out, MemoryStreamOptions options)
    : executor_(std::move(executor)), in_(std::move(in)), out_(std::move(out)), options_(options) {}

MemoryStream::~MemoryStream() {
  // close() wakes the peer through an Asio timer, whose cancel() throws only when the OS fails
  // it; a destructor must not throw, and the peer then learns of the end at its next wait.
  try {
    close();
  } catch (...) {  // see above
  }
}

awaitable<std::size_t> MemoryStream::read_some(std::span<char> out, std::error_code& ec) {
  ec.clear();
  for (;;) {
    if (closed_) {
      ec = std::make_error_code(std::errc::operation_canceled);
      co_return 0;
    }
    if (read_count_ >= options_.fail_after_bytes) {
      ec = options_.fail_with;
      co_return 0;
    }
    if (!in_->bytes.empty() && !out.empty()) {
      const auto n = std::min({out.size(), in_->bytes.size(), options_.max_read_bytes,
                               options_.fail_after_bytes - read_count_});
      std::memcpy(out.data(), in_->bytes.data(), n);
      in_->bytes.erase(0, n);
      read_count_ += n;
      co_return n;
    }
    if (in_->writer_done) {
      ec = make_error_code(TransportErrc::EndOfStream);
      co_return 0;
    }
    in_->changed.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code woken;
    co_await in_->changed.async_wait(asio::redirect_error(use_awaitable, woken));
  }
}

awaitable<void> MemoryStream::write_all(std::span<const char> bytes, std::error_code& ec,
                                        bool /*more*/) {
  ec.clear();
  if (closed_) {
    ec = std::make_error_code(std::errc::operation_canceled);
    co_return;
  }
  if (out_->reader_gone || out_->writer_done) {
    ec = std::make_error_code(std::errc::broken_pipe);
    co_return;
  }
  const auto allowed =
      options_.fail_after_bytes - std::min(written_count_, options_.fail_after_bytes);
  const auto n = std::min(bytes.size(), allowed);
  out_->bytes.append(bytes.data(), n);
  written_count_ += n;
  out_->wake();
  if (n < bytes.size()) ec = options_.fail_with;
  co_return;
}

awaitable<void> MemoryStream::finish(std::error_code& ec) {
  ec.clear();
  out_->writer_done = true;
  out_->wake();
  co_return;
}

void MemoryStream::close() {
  if (closed_) return;
  closed_ = true;
  out_->writer_done = true;
  out_->wake();
  in_->reader_gone = true;
  in_->wake();
}

bool MemoryStream::peer_has_finished() { return in_->writer_done && in_->bytes.empty(); }

std::pair<std::unique_ptr<MemoryStream>, std::unique_ptr<MemoryStream>> make_memory_stream_pair(
    const asio::any_io_executor& executor, MemoryStreamOptions first, MemoryStreamOptions second) {
  auto forward = std::make_shared<MemoryPipe>(executor);   // first -> second
  auto backward = std::make_shared<MemoryPipe>(executor);  // second -> first
  return {std::make_unique<MemoryStream>(executor, backward, forward, first),
          std::make_unique<MemoryStream>(executor, forward, backward, second)};
}

}  // namespace gridftp::transport
