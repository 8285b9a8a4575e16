#include "server/session/reply_writer.hpp"

#include <vector>

namespace gridftp::server {

namespace asio = transport::asio;
using transport::use_awaitable;

ReplyWriter::ReplyWriter(transport::tcp::socket& socket)
    : socket_(socket), drained_(socket.get_executor()) {}

transport::awaitable<void> ReplyWriter::drain() {
  if (!queue_.try_begin_writing()) co_return;
  std::vector<std::string> batch;
  std::vector<asio::const_buffer> buffers;
  while (!queue_.is_empty()) {
    // All that is queued goes out in one write: a STOR's closing 112, 111 and 226 make one
    // segment and one wake-up of the client, not three (thousands of small files add up).
    queue_.take_batch(batch);
    buffers.clear();
    for (const auto& text : batch) buffers.push_back(asio::buffer(text));
    boost::system::error_code ec;
    const auto sent =
        co_await asio::async_write(socket_, buffers, asio::redirect_error(use_awaitable, ec));
    if (ec) {
      queue_.discard();
      break;
    }
    queue_.written(sent);
    drained_.cancel();  // wakes wait_for_backlog_below
  }
  queue_.end_writing();
  drained_.cancel();
  if (queue_.is_closing()) {
    boost::system::error_code ignored;
    socket_.shutdown(transport::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }
}

transport::awaitable<void> ReplyWriter::wait_until_drained(std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!queue_.is_idle() && std::chrono::steady_clock::now() < deadline) {
    drained_.expires_at(deadline);
    boost::system::error_code ec;
    co_await drained_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
  if (!queue_.is_idle()) {  // a peer that stopped reading: give up on the rest
    boost::system::error_code ignored;
    socket_.close(ignored);
  }
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
