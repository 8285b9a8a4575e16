// MODE E transfers for a session (GFD.20; docs/WIRE.md §2): the sending side connects
// `parallelism` streams to each active address and they pull blocks from one planner; the
// receiving side keeps accepting on its passive listener until EOF accounting completes, sending
// 112 perf and 111 range markers meanwhile. Streams run on their sockets' data loops; this
// file's coroutines run on the session strand.
#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/restart/markers.hpp"
#include "server/session/transfer/transfer_commands.hpp"
#include "transport/deadline.hpp"
#include "transport/task_group.hpp"

namespace gridftp::server {

namespace rc = protocol::control::reply_code;
using transport::use_awaitable;

std::int64_t TransferCommands::now_tenths() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count() /
         100;
}

namespace {

// Disk syncs run on the blocking pool: an fdatasync can take seconds. Plain coroutine functions
// handed to co_spawn, as elsewhere: GCC 12 mishandles a capturing lambda passed by value into a
// coroutine (its shared_ptr was released twice, closing the upload's file early).
transport::awaitable<Result<void>> sync_upload_data(std::shared_ptr<storage::Upload> upload) {
  co_return upload->sync_data();
}

transport::awaitable<Result<void>> commit_upload_here(std::shared_ptr<storage::Upload> upload) {
  co_return upload->commit();
}

}  // namespace

// The periodic 112/111 markers of one STOR; the transfer sets `done` and cancels the wait.
struct TransferCommands::MarkerTimer {
  explicit MarkerTimer(const asio::any_io_executor& executor) : timer(executor) {}
  asio::steady_timer timer;
  std::shared_ptr<storage::Upload> upload;
  bool done = false;
};

void TransferCommands::close_data_streams() {
  transfer_.close_streams();
  if (movers_ != nullptr && transfer_.is_active()) movers_->abort();
  if (udpx_.live) udpx_.live->stop = true;  // a UDPX transfer's thread ends at its next turn
}

bool TransferCommands::can_reuse_streams(bool sending) const {
  return stream_cache_.can_reuse(sending, settings().mode_e, data_channel_.is_configured());
}

void TransferCommands::send_perf_marker() {
  replies_.send(protocol::control::Reply{
      rc::kPerfMarker,
      protocol::restart::perf_marker_lines(now_tenths(), 0, transfer_.progress().bytes, 1)});
}

void TransferCommands::send_range_marker(const protocol::restart::ByteRangeSet& ranges) {
  if (ranges.empty()) return;  // Globus never sends an empty range marker
  replies_.send(rc::kRestartMarker, protocol::restart::format_range_marker_text(ranges));
}

transport::awaitable<Result<void>> TransferCommands::send_mode_e(TransferJob& job) {
  const auto timeout = std::chrono::seconds(services_.config.timeouts.data_seconds);
  auto security = data_security();
  if (!security) co_return make_error(security.error());
  // Reused connections keep their stripe grouping: all of them went to the one cached peer.
  const bool reuse = can_reuse_streams(true);
  const auto per_peer =
      reuse ? static_cast<unsigned>(stream_cache_.size()) : settings().parallelism;
  if (reuse) {
    transfer_.use_streams(stream_cache_.take());
  } else {
    stream_cache_.drop();
    auto sockets = co_await data_channel_.connect_streams(per_peer, timeout);
    if (!sockets)
      co_return make_error(transfer_.abort_requested() ? error_code_for(Condition::TransferAborted)
                                                       : sockets.error());
    for (auto& socket : *sockets)
      transfer_.add_stream(std::make_shared<DataStream>(DataStream{socket, {}, {}}));
  }
  const auto& streams = transfer_.streams();
  stream_cache_.set_streams_used(streams.size());

  std::shared_ptr<const std::string> text;
  if (job.listing) text = std::make_shared<const std::string>(std::move(*job.listing));
  const auto source =
      text ? BlockSource::text(text) : BlockSource::file(job.source->get(), job.offset);
  const std::uint64_t total = text ? text->size() : job.length;
  // After SPOR each group of per_peer connections is one receiving stripe, sent only its share
  // of the blocks (stripes count from wire offset 0, which is the file's but for ERET).
  // A mover serves only some of the receiving stripes (SITE STRIPE SEND): it plans them all
  // and sends each of its peers the share of the stripe that peer is.
  const auto peers = static_cast<unsigned>(streams.size() / per_peer);
  const auto& share = settings().stripe_share;
  if (share && share->indices.size() != peers) {
    co_return make_error(error_code_for(Condition::BadSequence));
  }
  auto planned = plan_stripe_senders(settings().stripe_layout, share ? share->stripes : peers,
                                     total, job.present.value_or(protocol::restart::ByteRangeSet{}),
                                     services_.config.storage.block_bytes);
  if (!planned) co_return make_error(planned.error());
  std::vector<std::shared_ptr<SenderShared>> senders_of_peers;
  for (unsigned peer = 0; peer < peers; ++peer)
    senders_of_peers.push_back((*planned)[share ? share->indices[peer] : peer]);
  const auto* senders = &senders_of_peers;
  for (const auto& sender : *senders) sender->bytes = &transfer_.progress().bytes;

  const auto self = owner_.keep_alive();
  const auto on_failure = [this, self] {
    asio::post(executor_, [this, self] { close_data_streams(); });
  };
  const StreamLimits limits{block_bytes(), timeout, *security,
                            sendfile_use(services_.config.storage)};
  transport::TaskGroup group(executor_);
  for (std::size_t i = 0; i < streams.size(); ++i) {
    // GFD.20: one EOF per receiving stripe, carrying how many connections went to that stripe.
    const auto eof_count =
        i % per_peer == 0 ? std::optional<std::uint64_t>(per_peer) : std::nullopt;
    streams[i]->executor = transfer_.stream_executor(i);
    group.spawn(streams[i]->executor,
                with_figures(streams[i], send_stream(streams[i], source, (*senders)[i / per_peer],
                                                     eof_count, limits, on_failure)));
  }
  auto outcome = co_await group.wait();
  for (const auto& stream : transfer_.streams())
    note_data_connection(stream->link, stream->figures);
  if (outcome && !transfer_.abort_requested()) {
    // Idle at EOD: reusable by the next RETR.
    stream_cache_.keep(transfer_.take_streams(), StreamCache::Direction::Sending);
  } else {
    close_data_streams();
    transfer_.forget_streams();
  }
  co_return outcome;
}

std::shared_ptr<TransferCommands::MarkerTimer> TransferCommands::start_markers(
    std::function<protocol::restart::ByteRangeSet()> received,
    std::shared_ptr<storage::Upload> upload) {
  send_perf_marker();  // the start marker, 0 bytes, as Globus sends it
  auto markers = std::make_shared<MarkerTimer>(executor_);
  markers->upload = std::move(upload);
  asio::co_spawn(executor_, send_markers(std::move(received), markers), asio::detached);
  return markers;
}

void TransferCommands::stop_markers(MarkerTimer& markers) {
  markers.done = true;
  markers.timer.cancel();  // else each of thousands of small files leaves a timer waiting
}

transport::awaitable<void> TransferCommands::send_markers(
    std::function<protocol::restart::ByteRangeSet()> received,
    std::shared_ptr<MarkerTimer> markers) {
  const auto self = owner_.keep_alive();
  while (!markers->done) {
    markers->timer.expires_after(std::chrono::seconds(settings().marker_seconds));
    boost::system::error_code ec;
    co_await markers->timer.async_wait(asio::redirect_error(use_awaitable, ec));
    if (markers->done) break;
    send_perf_marker();
    auto ranges = received();
    if (!markers->upload || !markers->upload->durable()) {
      send_range_marker(ranges);
      continue;
    }
    const auto synced = co_await asio::co_spawn(services_.blocking_pool,
                                                sync_upload_data(markers->upload), use_awaitable);
    // The transfer's own last marker and final reply may have gone out meanwhile.
    if (synced && !markers->done) send_range_marker(ranges);
  }
}

transport::awaitable<void> TransferCommands::send_kept_ranges(
    protocol::restart::ByteRangeSet ranges, std::shared_ptr<storage::Upload> upload) {
  if (upload && upload->durable()) {
    const auto synced =
        co_await asio::co_spawn(services_.blocking_pool, sync_upload_data(upload), use_awaitable);
    if (!synced) co_return;
  }
  send_range_marker(ranges);
}

transport::awaitable<Result<void>> TransferCommands::commit_upload(
    std::shared_ptr<storage::Upload> upload) {
  if (!upload->durable()) co_return upload->commit();
  co_return co_await asio::co_spawn(services_.blocking_pool, commit_upload_here(upload),
                                    use_awaitable);
}

transport::awaitable<Result<void>> TransferCommands::accept_mode_e_streams(
    tcp::acceptor& acceptor, transport::Deadline& accept_deadline, std::chrono::seconds timeout,
    const std::function<bool()>& complete,
    const std::function<void(const DataStreamPtr&)>& start_stream) {
  while (acceptor.is_open() && !complete()) {
    auto socket = data_channel_.new_stream_socket();
    auto stream = std::make_shared<DataStream>(DataStream{socket, {}, socket->get_executor()});
    boost::system::error_code ec;
    co_await acceptor.async_accept(*stream->socket, asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    if (!data_channel_.is_expected_peer(*stream->socket)) {
      log_->warn("{} data connection from an unexpected address refused", tag_);
      close_data_streams();
      co_return make_error(error_code_for(Condition::UnexpectedDataPeer));
    }
    accept_deadline.expires_after(timeout);
    stream->socket->set_option(tcp::no_delay(true), ec);
    start_stream(stream);
  }
  co_return Result<void>{};
}

transport::awaitable<Result<void>> TransferCommands::receive_mode_e(TransferJob& job) {
  const auto timeout = std::chrono::seconds(services_.config.timeouts.data_seconds);
  auto security = data_security();
  if (!security) co_return make_error(security.error());
  const bool reuse = can_reuse_streams(false);
  if (!reuse) stream_cache_.drop();
  auto reused = stream_cache_.take();
  transfer_.hold_listener(reuse ? nullptr : data_channel_.take_acceptor());
  // With reused connections nothing new is expected, so a closed listener stands in.
  const auto acceptor =
      transfer_.listener() ? transfer_.listener() : std::make_shared<tcp::acceptor>(executor_);
  const auto self = owner_.keep_alive();
  auto shared = std::make_shared<ReceiverShared>();
  shared->bytes = &transfer_.progress().bytes;
  // Completion and failure are noticed on a stream's strand; the listener belongs to ours.
  shared->on_complete = [this, self, acceptor] {
    asio::post(executor_, [acceptor] {
      boost::system::error_code ignored;
      acceptor->close(ignored);
    });
  };
  const auto on_failure = [this, self] {
    asio::post(executor_, [this, self] { close_data_streams(); });
  };

  const auto markers = start_markers([shared] { return shared->received_ranges(); }, job.upload);

  // The listener stays open until EOF accounting completes (GFD.20: a stream may still be on its
  // way); a sender that stops connecting for data_seconds ends it.
  auto accept_deadline = std::make_shared<transport::Deadline>(executor_);
  accept_deadline->expires_after(timeout);
  transport::start_watch(accept_deadline, [acceptor] {
    boost::system::error_code ignored;
    acceptor->close(ignored);
  });
  const StreamLimits limits{block_bytes(), timeout, *security,
                            sendfile_use(services_.config.storage)};
  transport::TaskGroup group(executor_);
  const auto start_stream = [&](const DataStreamPtr& stream) {
    transfer_.add_stream(stream);
    group.spawn(stream->executor, with_figures(stream, receive_stream(stream, job.upload, shared,
                                                                      limits, on_failure)));
  };
  for (auto& stream : reused) {
    stream->executor = stream->socket->get_executor();
    start_stream(stream);
  }
  const auto outcome_override = co_await accept_mode_e_streams(
      *acceptor, *accept_deadline, timeout, [&] { return shared->is_complete(); }, start_stream);
  accept_deadline->stop();
  auto outcome = co_await group.wait();
  if (!outcome_override) outcome = outcome_override;
  for (const auto& stream : transfer_.streams())
    note_data_connection(stream->link, stream->figures);
  stream_cache_.set_streams_used(transfer_.streams().size());
  stop_markers(*markers);
  transfer_.close_listener();
  if (outcome && !shared->is_complete())
    outcome = make_error(error_code_for(Condition::TransferFailed));
  if (outcome && !transfer_.abort_requested()) {
    // Idle at EOD: reusable by the next STOR.
    stream_cache_.keep(transfer_.take_streams(), StreamCache::Direction::Receiving);
  } else {
    close_data_streams();
    transfer_.forget_streams();
  }
  send_perf_marker();
  co_await send_kept_ranges(shared->received_ranges(), job.upload);
  co_return outcome;
}

}  // namespace gridftp::server
