// The control channel's outgoing bytes in the order they were queued, and whether a writer is
// draining them. No I/O (ReplyWriter does the writes): one writer at a time is what keeps a 226
// behind its 150.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace gridftp::server {

class ReplyQueue {
 public:
  // Queues `bytes` behind everything queued before. True when no writer is draining, so the
  // caller must start one; a writer already running sends them after what it holds now.
  bool push(std::string bytes);
  // False when a writer is already draining: the caller must not start a second one.
  bool try_begin_writing();
  // Moves everything queued so far into `batch` (oldest first), to go out in one write.
  void take_batch(std::vector<std::string>& batch);
  // A batch of `bytes` reached the socket.
  void written(std::size_t bytes);
  // A write failed: nothing queued can reach the peer any more.
  void discard() {
    pending_.clear();
    backlog_ = 0;
  }
  void end_writing() { writing_ = false; }
  // After the queue drains the connection closes (QUIT, shutdown, a broken protection layer).
  // True when no writer is draining, so the caller must start one to do the close.
  bool close_when_drained();

  bool is_writing() const { return writing_; }
  bool is_empty() const { return pending_.empty(); }
  bool is_idle() const { return !writing_ && pending_.empty(); }
  bool is_closing() const { return closing_; }
  // Bytes queued or being written, not yet taken by the socket.
  std::size_t backlog() const { return backlog_; }

 private:
  std::deque<std::string> pending_;
  bool writing_ = false;
  bool closing_ = false;
  std::size_t backlog_ = 0;
};

}  // namespace gridftp::server
