// The transfer a session is running, if any (one at a time): whether one runs, whether ABOR, the
// session's end or the server's shutdown asked it to stop, the connections it moves data over
// (the stream-mode socket, or the MODE E streams and the receiver's listener), the bytes moved so
// far, and the wake-up for commands that wait for it to end. Lives on the session strand: every
// method runs there; only the byte counter is also added to by MODE E streams from their own
// strands. The transfer itself (transfer/transfer_run.cpp, mode_e_run.cpp, udpx_run.cpp) is
// the session's coroutine; this is what it and ABOR/STAT share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "server/data/mode_e_streams.hpp"
#include "server/data/stream_transfer.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

class RunningTransfer {
 public:
  // `strand`: the session's, where the wake-up is delivered.
  explicit RunningTransfer(const asio::any_io_executor& strand) : done_(strand) {}
  RunningTransfer(const RunningTransfer&) = delete;
  RunningTransfer& operator=(const RunningTransfer&) = delete;

  bool is_active() const { return active_; }
  bool abort_requested() const { return abort_requested_; }
  // A transfer starts: active, nothing moved yet, and no abort asked (an ABOR or shutdown that
  // came while none ran does not stop the next one).
  void begin();
  // The transfer has queued its final reply: no longer active; wait_until_done() returns.
  void end();
  // Returns once no transfer runs: at once when none does.
  transport::awaitable<void> wait_until_done();
  // Asks the transfer to stop: it reports TransferAborted. A stream-mode connection is closed
  // here, which ends the transfer's reads and writes on it; MODE E streams close with
  // close_streams().
  void request_abort();

  // The stream-mode data connection while the transfer moves bytes over it.
  void hold_socket(std::shared_ptr<tcp::socket> socket) { socket_ = std::move(socket); }
  void release_socket() { socket_.reset(); }

  // The MODE E connections of the running transfer.
  const std::vector<DataStreamPtr>& streams() const { return streams_; }
  void add_stream(DataStreamPtr stream) { streams_.push_back(std::move(stream)); }
  void use_streams(std::vector<DataStreamPtr> streams) { streams_ = std::move(streams); }
  // Hands the connections on (to the StreamCache) and forgets them.
  std::vector<DataStreamPtr> take_streams();
  void forget_streams() { streams_.clear(); }
  asio::any_io_executor stream_executor(std::size_t index) const;
  // Closes every MODE E connection and the receiver's listener (ABOR, a failed stream).
  void close_streams();

  // A MODE E receiver's listener while it accepts the sender's connections.
  void hold_listener(std::shared_ptr<tcp::acceptor> listener) { listener_ = std::move(listener); }
  const std::shared_ptr<tcp::acceptor>& listener() const { return listener_; }
  // Closes the listener and forgets it.
  void close_listener();

  // Bytes moved so far, for STAT, markers and the transfer log.
  TransferProgress& progress() { return progress_; }

 private:
  bool active_ = false;
  bool abort_requested_ = false;
  std::shared_ptr<tcp::socket> socket_;
  std::vector<DataStreamPtr> streams_;
  std::shared_ptr<tcp::acceptor> listener_;  // MODE E receiver's listener while it runs
  TransferProgress progress_;
  asio::steady_timer done_;  // cancelled when the transfer ends, which wakes its waiters
};

}  // namespace gridftp::server
