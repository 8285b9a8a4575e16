// MODE E transfers for a session (GFD.20; wire doc §2): the sending side connects
// `parallelism` streams to each active address and they pull blocks from one planner; the
// receiving side keeps accepting on its passive listener until EOF accounting completes, sending
// 112 perf and 111 range markers meanwhile. Streams run on their own strands; this file's
// coroutines run on the session strand.
#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/restart/markers.hpp"
#include "server/session/control_session.hpp"
#include "transport/deadline.hpp"
#include "transport/task_group.hpp"

namespace gridftp::server {

namespace rc = protocol::control::reply_code;
using transport::use_awaitable;

namespace {

// Blocks of 1 MiB keep the per-block header cost negligible and match globus-url-copy's own
// sending block size (its -bs default).
constexpr std::size_t kBlockBytes = 1 << 20;

std::int64_t now_tenths() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
             .count() / 100;
}

}  // namespace

void ControlSession::close_data_streams() {
  boost::system::error_code ignored;
  for (const auto& socket : data_streams_) socket->close(ignored);
  if (stream_acceptor_) stream_acceptor_->close(ignored);
}

void ControlSession::send_perf_marker() {
  send(protocol::control::Reply{rc::kPerfMarker, protocol::restart::perf_marker_lines(now_tenths(), 0, progress_.bytes, 1)});
}

void ControlSession::send_range_marker(const protocol::restart::ByteRangeSet& ranges) {
  if (ranges.empty()) return;  // Globus never sends an empty range marker
  send(rc::kRestartMarker, protocol::restart::format_range_marker_text(ranges));
}

transport::awaitable<Result<void>> ControlSession::send_mode_e(TransferJob& job) {
  const auto timeout = std::chrono::seconds(services_.config.timeouts.data_seconds);
  const auto per_peer = parallelism_;
  auto sockets = co_await data_channel_.connect_streams(per_peer, timeout);
  if (!sockets) co_return make_error(abort_requested_ ? error_code_for(Condition::TransferAborted) : sockets.error());
  data_streams_ = *sockets;
  streams_used_ = data_streams_.size();

  std::shared_ptr<const std::string> text;
  if (job.listing) text = std::make_shared<const std::string>(std::move(*job.listing));
  const auto source = text ? BlockSource::text(text) : BlockSource::file(job.source->get(), job.offset);
  const std::uint64_t total = text ? text->size() : job.length;
  auto plan = protocol::mode_e::BlockPlanner::for_restart(0, total, job.present.value_or(protocol::restart::ByteRangeSet{}),
                                                          kBlockBytes);
  if (!plan) co_return make_error(plan.error());
  auto shared = std::make_shared<SenderShared>(std::move(*plan));
  shared->bytes = &progress_.bytes;

  const auto self = shared_from_this();
  const auto on_failure = [self] { asio::post(self->socket_.get_executor(), [self] { self->close_data_streams(); }); };
  const StreamLimits limits{kBlockBytes, timeout};
  transport::TaskGroup group(socket_.get_executor());
  for (std::size_t i = 0; i < data_streams_.size(); ++i) {
    // GFD.20: one EOF per receiving stripe, carrying how many connections went to that stripe.
    const auto eof_count = i % per_peer == 0 ? std::optional<std::uint64_t>(per_peer) : std::nullopt;
    group.spawn(data_streams_[i]->get_executor(), send_stream(data_streams_[i], source, shared, eof_count, limits, on_failure));
  }
  auto outcome = co_await group.wait();
  for (const auto& socket : data_streams_) {
    boost::system::error_code ignored;
    socket->shutdown(tcp::socket::shutdown_send, ignored);
    socket->close(ignored);
  }
  data_streams_.clear();
  co_return outcome;
}

transport::awaitable<void> ControlSession::send_markers(std::shared_ptr<ReceiverShared> shared, std::shared_ptr<bool> done) {
  const auto self = shared_from_this();
  asio::steady_timer timer(socket_.get_executor());
  while (!*done) {
    timer.expires_after(std::chrono::seconds(marker_seconds_));
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
    if (*done) break;
    send_perf_marker();
    send_range_marker(shared->received_ranges());
  }
}

transport::awaitable<Result<void>> ControlSession::receive_mode_e(TransferJob& job) {
  const auto timeout = std::chrono::seconds(services_.config.timeouts.data_seconds);
  stream_acceptor_ = data_channel_.take_acceptor();
  const auto acceptor = stream_acceptor_;
  const auto self = shared_from_this();
  auto shared = std::make_shared<ReceiverShared>();
  shared->bytes = &progress_.bytes;
  // Completion and failure are noticed on a stream's strand; the listener belongs to ours.
  shared->on_complete = [self, acceptor] {
    asio::post(self->socket_.get_executor(), [acceptor] {
      boost::system::error_code ignored;
      acceptor->close(ignored);
    });
  };
  const auto on_failure = [self] { asio::post(self->socket_.get_executor(), [self] { self->close_data_streams(); }); };

  send_perf_marker();  // the start marker, 0 bytes, as Globus sends it
  auto markers_done = std::make_shared<bool>(false);
  asio::co_spawn(socket_.get_executor(), send_markers(shared, markers_done), asio::detached);

  // The listener stays open until EOF accounting completes (GFD.20: a stream may still be on its
  // way); a sender that stops connecting for data_seconds ends it.
  auto accept_deadline = std::make_shared<transport::Deadline>(socket_.get_executor());
  accept_deadline->expires_after(timeout);
  transport::start_watch(accept_deadline, [acceptor] {
    boost::system::error_code ignored;
    acceptor->close(ignored);
  });
  const StreamLimits limits{kBlockBytes, timeout};
  transport::TaskGroup group(socket_.get_executor());
  while (acceptor->is_open() && !shared->is_complete()) {
    auto socket = data_channel_.new_stream_socket();
    boost::system::error_code ec;
    co_await acceptor->async_accept(*socket, asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    accept_deadline->expires_after(timeout);
    socket->set_option(tcp::no_delay(true), ec);
    data_streams_.push_back(socket);
    group.spawn(socket->get_executor(), receive_stream(socket, job.upload, shared, limits, on_failure));
  }
  accept_deadline->stop();
  auto outcome = co_await group.wait();
  streams_used_ = data_streams_.size();
  *markers_done = true;
  close_data_streams();
  data_streams_.clear();
  stream_acceptor_.reset();
  if (outcome && !shared->is_complete()) outcome = make_error(error_code_for(Condition::TransferFailed));
  send_perf_marker();
  send_range_marker(shared->received_ranges());
  co_return outcome;
}

}  // namespace gridftp::server
