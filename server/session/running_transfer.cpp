#include "server/session/running_transfer.hpp"

#include <utility>

namespace gridftp::server {

void RunningTransfer::begin() {
  active_ = true;
  abort_requested_ = false;
  progress_.bytes = 0;
  done_.expires_at(std::chrono::steady_clock::time_point::max());
}

void RunningTransfer::end() {
  active_ = false;
  done_.cancel();
}

transport::awaitable<void> RunningTransfer::wait_until_done() {
  while (active_) {
    boost::system::error_code ec;
    co_await done_.async_wait(asio::redirect_error(transport::use_awaitable, ec));
  }
}

void RunningTransfer::request_abort() {
  abort_requested_ = true;
  boost::system::error_code ignored;
  if (socket_) socket_->close(ignored);
}

std::vector<DataStreamPtr> RunningTransfer::take_streams() { return std::exchange(streams_, {}); }

asio::any_io_executor RunningTransfer::stream_executor(std::size_t index) const {
  // A stream runs on the loop its socket's reactor belongs to: any other executor would take a
  // hand-off between threads on every read and write.
  return streams_[index]->socket->get_executor();
}

void RunningTransfer::close_streams() {
  // Each close is posted to the stream's own executor, where its coroutine runs: Asio sockets
  // are not thread-safe (DataStream in server/data/mode_e_streams.hpp).
  for (const auto& stream : streams_) {
    asio::post(stream->executor, [stream] {
      boost::system::error_code ignored;
      stream->socket->close(ignored);
    });
  }
  boost::system::error_code ignored;
  if (listener_) listener_->close(ignored);
}

void RunningTransfer::close_listener() {
  if (listener_) {
    boost::system::error_code ignored;
    listener_->close(ignored);
  }
  listener_.reset();
}

}  // namespace gridftp::server
