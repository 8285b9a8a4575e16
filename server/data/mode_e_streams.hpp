// One MODE E data connection's work (GFD.20 extended block mode; docs/WIRE.md §2.3). A sender
// stream pulls blocks from the transfer's shared planner until none are left, then ends with EOD
// (one stream per receiver stripe sends EOF|EOD with the connection count). A receiver stream
// decodes blocks and writes each where its offset says, until its EOD. Each runs on its own strand.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"
#include "protocol/mode_e/block_planner.hpp"
#include "protocol/mode_e/eod_tracker.hpp"
#include "protocol/mode_e/stripe_layout.hpp"
#include "protocol/restart/byte_range_set.hpp"
#include "server/data/block_source.hpp"
#include "server/data/data_channel.hpp"
#include "server/data/data_security.hpp"
#include "server/storage/upload.hpp"
#include "transport/file_send.hpp"
#include "transport/socket_figures.hpp"

namespace gridftp::server {

// One MODE E connection. Connections idle at EOD may carry the next transfer (GFD.20 caching);
// `pending` keeps bytes read past this transfer's EOD for it.
struct DataStream {
  SocketPtr socket;
  std::string pending;
  // Where this stream's coroutine runs; anything else touching `socket` (a close for ABOR or
  // after another stream failed) must be posted here, as Asio sockets are not thread-safe.
  asio::any_io_executor executor;
  // The bytes' path: clear, or TLS after the DCAU handshake, which runs once per connection
  // (a cached connection keeps it: DCAU/PROT changes drop the cache). Senders and receivers
  // move their bytes through a transport::SocketStream over `socket` and this link, the
  // byte-stream seam every data connection of gridftpd and gridcp uses.
  transport::DataLink link = {};
  bool link_ready = false;
  // Read on `executor` once the stream's transfer ended (with_figures), for the transfer log.
  transport::SocketFigures figures = {};
};
using DataStreamPtr = std::shared_ptr<DataStream>;

// Shared by a transfer's sender streams. The mutex guards only the planner hand-out.
struct SenderShared {
  explicit SenderShared(protocol::mode_e::BlockPlanner plan) : planner(std::move(plan)) {}
  std::optional<protocol::mode_e::Block> next_block();

  std::mutex mutex;
  protocol::mode_e::BlockPlanner planner;
  std::atomic<std::uint64_t>* bytes = nullptr;  // the session's live counter (STAT, markers)
};

// One SenderShared per receiving stripe (SPOR's addresses, or the one of PORT), each planning the
// blocks of its stripe's share of [0, total) under `layout` (GFD.20 "OPTS RETR" StripeLayout,
// Globus's default Blocked with 1 MiB blocks), less what the receiver already holds (`present`,
// MODE E REST). Errors: as protocol::mode_e::outside_stripe and BlockPlanner::for_restart.
Result<std::vector<std::shared_ptr<SenderShared>>> plan_stripe_senders(
    const protocol::mode_e::StripeLayout& layout, unsigned stripes, std::uint64_t total,
    const protocol::restart::ByteRangeSet& present, std::uint64_t block_bytes);

// Shared by a transfer's receiver streams: EOD accounting and what has arrived (for 111 markers).
struct ReceiverShared {
  Result<void> on_data(std::uint64_t offset, std::uint64_t length);
  Result<void> on_eod();
  Result<void> on_eof(std::uint64_t expected);
  bool is_complete() const;
  protocol::restart::ByteRangeSet received_ranges() const;

  mutable std::mutex mutex;
  protocol::mode_e::EodTracker tracker;
  protocol::restart::ByteRangeSet received;
  std::atomic<std::uint64_t>* bytes = nullptr;
  std::function<void()> on_complete;  // called once, from the stream that completed the count
  bool completion_reported = false;
  // The upload's one disk thread, which every stream's DiskWriter writes on (see there why).
  std::shared_ptr<transport::asio::thread_pool> disk_thread =
      std::make_shared<transport::asio::thread_pool>(1);
};

// Called from a stream's strand when it fails, so the owner can stop the others at once.
using StreamFailureHook = std::function<void()>;

struct StreamLimits {
  std::size_t block_bytes = 1 << 20;
  std::chrono::seconds stall_timeout{120};
  std::shared_ptr<const DataSecurity> security = {};                     // null: DCAU N
  transport::SendfileUse sendfile = transport::SendfileUse::OtherHosts;  // [storage] sendfile
};

// Runs `transfer` (a stream's send_stream or receive_stream, on the stream's executor), then
// reads the stream's socket figures there, before the transfer's task group sees it end.
transport::awaitable<Result<void>> with_figures(DataStreamPtr stream,
                                                transport::awaitable<Result<void>> transfer);

// `eof_count` set: this stream sends EOF|EOD with that count instead of a plain EOD.
transport::awaitable<Result<void>> send_stream(DataStreamPtr stream, BlockSource source,
                                               std::shared_ptr<SenderShared> shared,
                                               std::optional<std::uint64_t> eof_count,
                                               StreamLimits limits, StreamFailureHook on_failure);

transport::awaitable<Result<void>> receive_stream(DataStreamPtr stream,
                                                  std::shared_ptr<storage::Upload> upload,
                                                  std::shared_ptr<ReceiverShared> shared,
                                                  StreamLimits limits,
                                                  StreamFailureHook on_failure);

}  // namespace gridftp::server
