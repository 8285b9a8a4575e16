// Writes a control connection's replies in the order queued, one write at a time, and closes the
// connection once they are out when asked to. Formatting and RFC 2228 (GSI) wrapping happen before
// (ControlSession::send); the stream is the control channel's ByteStream, TLS already inside it
// after AUTH TLS. Runs on the session strand.
#pragma once

#include <chrono>
#include <string>

#include "server/session/reply_queue.hpp"
#include "transport/asio.hpp"
#include "transport/byte_stream.hpp"

namespace gridftp::server {

class ReplyWriter {
 public:
  explicit ReplyWriter(transport::ByteStream& stream);

  // The stream that carries the replies from now on (AUTH TLS puts TLS around the old one).
  // Only while no drain() runs: after wait_until_drained.
  void use_stream(transport::ByteStream& stream) { stream_ = &stream; }

  // Queues finished bytes. True when the caller must start drain(): the caller owns the
  // coroutine so that it can keep the session alive while the write is in flight.
  bool queue(std::string bytes) { return queue_.push(std::move(bytes)); }
  // After the queue drains, finish and close the stream. True when the caller must start drain().
  bool close_after_drain() { return queue_.close_when_drained(); }
  bool is_closing() const { return queue_.is_closing(); }

  // Writes until the queue is empty; returns at once if another drain() is running.
  transport::awaitable<void> drain();
  // Waits until every queued reply left, at most `limit`; a peer that stopped reading by then
  // loses the rest and its connection.
  transport::awaitable<void> wait_until_drained(std::chrono::seconds limit);
  // Bytes queued and not yet taken by the stream.
  std::size_t backlog() const { return queue_.backlog(); }
  // Waits until the backlog is under `bytes`, at most `limit`; false if it is not by then.
  transport::awaitable<bool> wait_for_backlog_below(std::size_t bytes, std::chrono::seconds limit);

 private:
  transport::ByteStream* stream_;
  ReplyQueue queue_;
  // Cancelled whenever a write completes or a drain ends, to wake wait_until_drained (so a
  // session process exits only after its last reply left) and wait_for_backlog_below.
  transport::asio::steady_timer drained_;
};

}  // namespace gridftp::server
