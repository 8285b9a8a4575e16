#include "server/session/reply_writer.hpp"

#include <vector>

namespace gridftp::server {

namespace asio = transport::asio;
using transport::use_awaitable;

ReplyWriter::ReplyWriter(transport::ByteStream& stream)
    : stream_(&stream), drained_(stream.get_executor()) {}

transport::awaitable<void> ReplyWriter::drain() {
  if (!queue_.try_begin_writing()) co_return;
  std::vector<std::string> batch;
  std::string joined;
  std::error_code ec;
  while (!queue_.is_empty()) {
    // All that is queued goes out in one write: a STOR's closing 112, 111 and 226 make one
    // segment (one TLS record) and one wake-up of the client, not three (thousands of small
    // files add up).
    queue_.take_batch(batch);
    joined.clear();
    for (const auto& text : batch) joined += text;
    co_await stream_->write_all(joined, ec);
    if (ec) {
      queue_.discard();
      break;
    }
    queue_.written(joined.size());
    drained_.cancel();  // wakes wait_for_backlog_below
  }
  queue_.end_writing();
  drained_.cancel();
  if (queue_.is_closing()) {
    // The end of what we send (a FIN, or TLS close_notify then the FIN), unless writing failed.
    if (!ec) co_await stream_->finish(ec);
    stream_->close();
  }
}

transport::awaitable<void> ReplyWriter::wait_until_drained(std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!queue_.is_idle() && std::chrono::steady_clock::now() < deadline) {
    drained_.expires_at(deadline);
    boost::system::error_code ec;
    co_await drained_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
  if (!queue_.is_idle()) stream_->close();  // a peer that stopped reading: give up on the rest
}

transport::awaitable<bool> ReplyWriter::wait_for_backlog_below(std::size_t bytes,
                                                               std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (queue_.backlog() >= bytes && !queue_.is_closing() &&
         std::chrono::steady_clock::now() < deadline) {
    drained_.expires_at(deadline);
    boost::system::error_code ec;
    co_await drained_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
  co_return queue_.backlog() < bytes;
}

}  // namespace gridftp::server
