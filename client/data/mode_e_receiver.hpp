// The passive, receiving side of a MODE E get (docs/WIRE.md §2.1, §2.3): listens for the server's
// data connections, runs one thread per connection with blocking reads under a deadline, decodes
// blocks and hands each payload to a thread-safe writer at its offset. It keeps accepting until
// the EOF's count of EODs has arrived, since connections may come after the EOF header. On
// gsiftp with DCAU each connection is secured first, we being the TLS server (docs/WIRE.md §5.7).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include "client/clock.hpp"
#include "client/data/data_socket.hpp"
#include "protocol/control/passive_reply.hpp"
#include "protocol/mode_e/receive_accounting.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

class ModeEReceiver {
 public:
  // Called from several threads at once with disjoint ranges; must be thread-safe (pwrite).
  using BlockWriter = std::function<Result<void>(std::uint64_t offset, std::string_view bytes)>;

  // Listens on `host` (our end of the control connection) at an ephemeral port. `stall_timeout`
  // bounds each accept and read; `socket_buffer` (-tcp-bs) sizes the accepted sockets' buffers
  // (0: the kernel's autotuning). Errors: the socket error of open/bind/listen.
  static Result<std::unique_ptr<ModeEReceiver>> listen(const std::string& host, BlockWriter writer,
                                                       Clock::duration stall_timeout,
                                                       DataChannelSecurity security = {},
                                                       std::uint32_t socket_buffer = 0);
  ModeEReceiver(BlockWriter writer, Clock::duration stall_timeout, DataChannelSecurity security);
  ModeEReceiver(const ModeEReceiver&) = delete;
  ModeEReceiver& operator=(const ModeEReceiver&) = delete;
  // Cancels and joins every thread.
  ~ModeEReceiver();

  protocol::control::HostPort address() const { return address_; }
  // Starts accepting in the background.
  void start();
  // Blocks until the transfer is complete or failed. Returns the length of the data, which
  // arrived as [0, n) without holes. Errors: decoder and accounting errors, socket errors,
  // std::errc::timed_out when a connection or read stalled, writer errors, those of
  // DataSocket::secure, ClientErrc::Cancelled after cancel().
  Result<std::uint64_t> wait();
  // Stops accepting and reading; wait() then returns.
  void cancel();

 private:
  struct Stream {
    transport::asio::io_context io;
    DataSocket data{io};
    std::thread thread;
  };

  void accept_loop();
  void read_loop(Stream& stream);
  Result<void> on_event(const protocol::mode_e::DecoderEvent& event, bool& saw_eod);
  // Records the outcome (the first one wins) and stops every thread that is still waiting.
  void finish(std::error_code error);
  void finish_locked(std::error_code error);
  void stop_all_locked();
  bool is_finished() const;

  BlockWriter writer_;
  Clock::duration stall_timeout_;
  DataChannelSecurity security_;
  protocol::control::HostPort address_;
  transport::asio::io_context accept_io_;
  transport::tcp::acceptor acceptor_{accept_io_};
  std::thread accept_thread_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable finished_signal_;
  protocol::mode_e::ReceiveAccounting accounting_;
  std::list<Stream> streams_;
  bool finished_ = false;
  std::error_code failure_;
};

}  // namespace gridftp::client
