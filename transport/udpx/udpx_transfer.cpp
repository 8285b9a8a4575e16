#include "transport/udpx/udpx_transfer.hpp"

#include <algorithm>
#include <thread>

#include "transport/udpx/engine_threads.hpp"

namespace gridftp::transport::udpx {
namespace {

std::string describe_close(wire::CloseCode code, Microseconds idle_timeout) {
  switch (code) {
    case wire::CloseCode::Ok:
      return "";
    case wire::CloseCode::Aborted:
      return "UDPX transfer aborted";
    case wire::CloseCode::StorageError:
      return "UDPX transfer failed: storage error";
    case wire::CloseCode::IdleTimeout:
      return "no packet from the UDPX peer for " + std::to_string(idle_timeout / 1'000'000) + " s";
    default:
      return "UDPX transfer failed: protocol error " +
             std::to_string(static_cast<std::uint64_t>(code));
  }
}

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0; }

// The sender's rates and protection: our offer (a target of 0 keeps the default), narrowed by
// what the receiver asked for in its HELLO or HELLO_ACK.
SenderSettings negotiated(SenderSettings settings, const wire::HelloBody& ours,
                          const wire::HelloBody& theirs) {
  if (ours.target_rate_bps > 0)
    settings.rate.target = static_cast<double>(ours.target_rate_bps) / 8;
  settings.rate.minimum = static_cast<double>(ours.min_rate_bps) / 8;
  settings.rate.policy = ours.policy;
  settings.data_protection =
      ours.encrypt ? crypto::BodyProtection::Encrypt : crypto::BodyProtection::AuthenticateOnly;
  if (theirs.target_rate_bps > 0) {
    settings.rate.target =
        std::min(settings.rate.target, static_cast<double>(theirs.target_rate_bps) / 8);
  }
  if (theirs.min_rate_bps > 0) {
    settings.rate.minimum =
        std::max(settings.rate.minimum, static_cast<double>(theirs.min_rate_bps) / 8);
  }
  settings.rate.minimum = std::min(settings.rate.minimum, settings.rate.target);
  // The start rate comes from whoever knows the path: the sender's own offer, else the
  // receiver's HELLO (gridcp remembers what a server's last transfer carried).
  const auto start = ours.start_rate_bps > 0 ? ours.start_rate_bps : theirs.start_rate_bps;
  settings.rate.start_rate = std::min(settings.rate.target, static_cast<double>(start) / 8);
  return settings;
}

// The report's parts made when a run settles (RunLimits::on_settled).
void note_sender(UdpxTransferReport& report, const DataSender& sender, std::uint64_t base,
                 const RunOutcome& outcome) {
  const auto stats = sender.stats();
  report.storage_error = sender.storage_error();
  report.base = base;
  report.figures.bytes = outcome.completed ? sender.length() : sender.acknowledged_bytes();
  const auto length = static_cast<double>(report.figures.bytes);
  report.figures.rtt_ms = stats.srtt * 1e3;
  report.figures.loss =
      ratio(static_cast<double>(stats.peer_lost), static_cast<double>(stats.data_packets));
  report.figures.sending_cost =
      std::max(0.0, ratio(static_cast<double>(stats.payload_bytes) - length, length));
}

void note_receiver(UdpxTransferReport& report, const DataReceiver& receiver) {
  const auto& stats = receiver.stats();
  report.storage_error = receiver.storage_error();
  report.base = receiver.shape().base;
  report.figures.bytes = stats.bytes_written;
  report.figures.rtt_ms = static_cast<double>(stats.srtt) * 1e-3;
  report.figures.receiving_cost =
      ratio(static_cast<double>(stats.duplicates), static_cast<double>(stats.data_packets));
  // The receiver cannot see what was sent: its loss is first copies skipped over blocks.
  report.figures.loss =
      ratio(static_cast<double>(stats.gaps),
            static_cast<double>(receiver.shape().is_stream() ? 0 : receiver.shape().block_count()));
}

void note_outcome(UdpxTransferReport& report, const RunOutcome& outcome,
                  Microseconds idle_timeout) {
  report.ok = outcome.completed;
  if (!report.ok) report.failure = UdpxTransferReport::Failure::Transfer;
  report.code = outcome.code;
  report.error = report.ok ? "" : describe_close(outcome.code, idle_timeout);
  report.seconds = static_cast<double>(outcome.elapsed) * 1e-6;
  report.figures.rate_bps = ratio(static_cast<double>(report.figures.bytes) * 8, report.seconds);
  report.figures.dropped += outcome.dropped;
}

}  // namespace

UdpxTransferReport run_udpx_transfer(DatagramSocket& socket, UdpxTransferSpec& spec, UdpxLive* live,
                                     const SettledCallback& on_settled) {
  UdpxTransferReport report;
  const auto settle = [&]() -> UdpxTransferReport& {
    if (on_settled) on_settled(report);
    return report;
  };
  RunLimits limits;
  limits.idle_timeout = spec.idle_timeout;
  limits.ceiling = spec.ceiling.get();
  if (live != nullptr) {
    limits.stop = &live->stop;
    limits.progress = &live->bytes;
    limits.target_rate = &live->target_rate;
  }
  const bool sending = spec.source != nullptr;
  auto handshake = spec.side == Side::Active
                       ? Handshake::active(std::move(spec.tls), spec.offer,
                                           static_cast<std::size_t>(spec.offer.max_udp_payload))
                       : Handshake::passive(std::move(spec.tls), spec.offer);
  if (!handshake) {
    report.error = "UDPX handshake: " + handshake.error().message();
    return settle();
  }
  std::optional<udp::endpoint> peer = spec.peer;
  const auto shaken = run_handshake(socket, *handshake, peer, limits);
  report.figures.handshake_seconds = static_cast<double>(shaken.elapsed) * 1e-6;
  report.peer_identity = handshake->peer_identity();
  report.figures.dropped = shaken.dropped;
  if (!shaken.completed) {
    report.failure = handshake->refused_peer_identity() ? UdpxTransferReport::Failure::PeerIdentity
                                                        : UdpxTransferReport::Failure::Handshake;
    report.code = shaken.code;
    report.error = !handshake->failure().empty() ? "UDPX key exchange: " + handshake->failure()
                   : shaken.code == wire::CloseCode::Aborted
                       ? describe_close(shaken.code, spec.idle_timeout)
                       : "no answer to the UDPX handshake";
    return settle();
  }
  Handshake* answer_again = spec.side == Side::Passive ? &*handshake : nullptr;
  // The report is made when the outcome is known (RunLimits::on_settled); the run may go on a
  // little for the peer's sake, and the report returned is that one.
  if (sending) {
    DataSender sender(handshake->path(), *spec.source, spec.shape,
                      negotiated(spec.sender, spec.offer, handshake->peer_hello()));
    limits.on_settled = [&](const RunOutcome& outcome) {
      note_sender(report, sender, spec.shape.base, outcome);
      note_outcome(report, outcome, spec.idle_timeout);
      settle();
    };
    run_sender(socket, handshake->path(), sender, peer, limits, answer_again);
  } else {
    DataReceiver receiver(handshake->path(), *spec.sink, spec.shape.transfer_id, spec.receiver);
    limits.on_settled = [&](const RunOutcome& outcome) {
      // Whatever arrived of a failed transfer stays for a restart (a completed one was flushed
      // before its CLOSE).
      if (!outcome.completed) (void)spec.sink->flush();
      note_receiver(report, receiver);
      note_outcome(report, outcome, spec.idle_timeout);
      settle();
    };
    run_receiver(socket, handshake->path(), receiver, peer, limits, answer_again);
  }
  return report;
}

awaitable<UdpxTransferReport> run_udpx_transfer_on_thread(DatagramSocket socket,
                                                          UdpxTransferSpec spec,
                                                          std::shared_ptr<UdpxLive> live) {
  auto executor = co_await asio::this_coro::executor;
  auto done = std::make_shared<asio::steady_timer>(executor, asio::steady_timer::time_point::max());
  // All the engine thread shares with the session. Its socket and timer are registered with the
  // session's io_context and its executor is a strand there: none of them may be destroyed on
  // the engine thread, which can outlive the session (and, at shutdown, the io_context).
  struct Shared {
    DatagramSocket socket;
    UdpxTransferSpec spec;
    std::shared_ptr<UdpxLive> live;
    asio::any_io_executor session;
    std::shared_ptr<asio::steady_timer> done;
    UdpxTransferReport report;
  };
  auto shared = std::make_shared<Shared>(
      Shared{std::move(socket), std::move(spec), std::move(live), executor, done, {}});
  // The thread keeps only the io_context's plain executor, which owns nothing; the io_context's
  // owner joins it before destroying the io_context (engine_threads.hpp).
  auto& context = static_cast<asio::io_context&>(asio::query(executor, asio::execution::context));
  start_engine_thread([shared, loop = context.get_executor()]() mutable {
    // The session resumes as soon as the outcome is known; the thread may stay on a little for
    // the peer (docs/UDPX.md §6) and gives its share of `shared` back on the loop.
    (void)run_udpx_transfer(shared->socket, shared->spec, shared->live.get(),
                            [&](const UdpxTransferReport& report) {
                              shared->report = report;
                              asio::post(loop, [shared] {
                                // On the session's strand; an expiry in the past, not
                                // cancel(): it also ends a wait that has not started yet.
                                asio::post(shared->session, [shared] {
                                  shared->done->expires_at(asio::steady_timer::time_point::min());
                                });
                              });
                            });
    asio::post(loop, [shared = std::move(shared)] {});
  });
  boost::system::error_code ignored;
  while (done->expiry() != asio::steady_timer::time_point::min()) {
    co_await done->async_wait(asio::redirect_error(use_awaitable, ignored));
  }
  co_return std::move(shared->report);
}

}  // namespace gridftp::transport::udpx
