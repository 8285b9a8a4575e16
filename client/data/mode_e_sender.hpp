// The active, sending side of a MODE E put (docs/WIRE.md §2.1, §2.3, §2.4): opens N connections to
// each of the server's passive addresses (one, or one per stripe after SPAS); the N threads of a
// stripe pull that stripe's blocks from its own BlockPlanner, read each with pread into their own
// reused buffer and send header + payload; then every connection gets an EOD, and exactly one
// per stripe gets EOF|EOD with the count N (GFD.20: the EOF counts one stripe's connections).
// Connections stay open until close(), after the server's 226. On gsiftp with DCAU each connection
// is secured first, we being the TLS client (docs/WIRE.md §5.7).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "client/clock.hpp"
#include "client/data/data_socket.hpp"
#include "client/report/progress_ticker.hpp"
#include "client/storage/local_source.hpp"
#include "protocol/control/passive_reply.hpp"
#include "protocol/mode_e/block_planner.hpp"
#include "protocol/mode_e/stripe_layout.hpp"
#include "protocol/restart/byte_range_set.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

struct SendPlan {
  // One address per receiving stripe: PASV's one, or SPAS's list (GFD.20; docs/WIRE.md §3.1).
  std::vector<protocol::control::HostPort> stripes;
  // How blocks are spread over several stripes (gridcp -sbs: Blocked, or Partitioned for 0).
  // Without one every block goes to the first stripe, as globus-url-copy -stripe without -sbs
  // does; each stripe still gets its EOF.
  std::optional<protocol::mode_e::StripeLayout> layout;
  unsigned streams = 1;  // connections to each stripe
  std::uint64_t block_size_bytes = 0;
  std::uint64_t local_offset = 0;  // file byte of wire offset 0 (ESTO: -off)
  std::uint64_t length = 0;        // bytes to send, wire offsets [0, length)
  Clock::duration stall_timeout{};
  DataChannelSecurity security;
  ProgressTicker* progress = nullptr;  // counts each block sent; may be null
  // A resumed put: wire ranges the receiver confirmed (111) before; only the rest is sent.
  protocol::restart::ByteRangeSet already_present;
  std::uint32_t socket_buffer = 0;  // -tcp-bs for each connection; 0: the kernel's autotuning
};

class ModeESender {
 public:
  // `source` must outlive the sender. Errors: BlockPlanner's (a zero block size).
  static Result<std::unique_ptr<ModeESender>> create(const LocalSource& source,
                                                     const SendPlan& plan);
  ModeESender(const LocalSource& source, const SendPlan& plan,
              std::vector<protocol::mode_e::BlockPlanner> planners);
  ModeESender(const ModeESender&) = delete;
  ModeESender& operator=(const ModeESender&) = delete;
  ~ModeESender();

  // Connects and sends in the background.
  void start();
  // Blocks until every stream sent its EOD (returns the payload bytes sent) or one failed.
  // Errors: socket errors, std::errc::timed_out, pread errors, those of DataSocket::secure,
  // ClientErrc::Cancelled.
  Result<std::uint64_t> wait();
  // Aborts the streams still sending; wait() then fails.
  void cancel();
  // Closes every connection (after the 226, or after a failure).
  void close();

 private:
  struct Stream {
    unsigned stripe = 0;
    transport::asio::io_context io;
    DataSocket data{io};
    std::thread thread;
    bool staged = false;  // the file could not be spliced: payload is read and written
  };

  void send_loop(Stream& stream, bool sends_eof);
  Result<void> send_blocks(Stream& stream, std::vector<char>& buffer);
  // One block: header and payload (sendfile on clear links). Errors: the read's, the socket's.
  Result<void> send_block(Stream& stream, const protocol::mode_e::Block& block,
                          std::vector<char>& buffer);
  void stream_done(std::error_code error);
  void join_all();

  const LocalSource& source_;
  SendPlan plan_;
  std::list<Stream> streams_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable done_signal_;
  std::vector<protocol::mode_e::BlockPlanner> planners_;  // one per stripe
  std::uint64_t bytes_sent_ = 0;
  unsigned streams_running_ = 0;
  std::error_code failure_;
};

}  // namespace gridftp::client
