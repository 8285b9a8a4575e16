// Transfers over the UDPX data channel (docs/UDPX.md §7, §8), and the SITE UDPX commands that
// watch and steer them. The engine (transport/udpx/udpx_transfer) is the one gridcp runs; here
// the session supplies the file, DCAU's TLS for the key exchange, and the 150/226 framing.
#include <cstdio>

#include <spdlog/spdlog.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/text_case.hpp"
#include "server/data/batch_transfer.hpp"
#include "server/session/transfer/transfer_commands.hpp"
#include "server/storage/posix_storage.hpp"
#include "transport/udpx/file_blocks.hpp"
#include "transport/udpx/restart_blocks.hpp"
#include "transport/udpx/stream_blocks.hpp"

namespace gridftp::server {

namespace rc = protocol::control::reply_code;
namespace udpx = transport::udpx;

namespace {

// A listing travels as a file would: blocks of an in-memory text.
class TextBlockSource final : public udpx::BlockSource {
 public:
  explicit TextBlockSource(std::string text) : text_(std::move(text)) {}
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override {
    if (offset >= text_.size()) return std::size_t{0};
    const auto count = std::min<std::size_t>(out.size(), text_.size() - offset);
    std::memcpy(out.data(), text_.data() + offset, count);
    return count;
  }
  std::uint64_t size() const { return text_.size(); }

 private:
  std::string text_;
};

// The condition a failed UDPX transfer is reported as: no handshake is a data connection that
// could not be opened (425), a wrong identity as over TCP, a broken transfer 426.
Condition condition_of(const udpx::UdpxTransferReport& report) {
  using Failure = udpx::UdpxTransferReport::Failure;
  if (report.code == protocol::udpx::CloseCode::StorageError) return Condition::TransferFailed;
  switch (report.failure) {
    case Failure::Handshake:
      return Condition::DataConnection;
    case Failure::PeerIdentity:
      return Condition::UnexpectedDataIdentity;
    case Failure::None:
    case Failure::Transfer:
      break;
  }
  return Condition::TransferAborted;
}

// DCAU's TLS where the session has DCAU; otherwise (allowed by require_data_channel_or_reply
// only where the config says so) unauthenticated TLS (docs/UDPX.md §4.1).
Result<udpx::InBandTls> key_exchange(const DataSecurity* dcau, bool active) {
  const auto side = active ? udpx::Side::Active : udpx::Side::Passive;
  if (dcau == nullptr) return udpx::unauthenticated_tls(side);
  return udpx::dcau_tls(active ? dcau->connecting : dcau->accepting, side, dcau->expected_peer);
}

// A batch (BRET, BSTO; docs/WIRE.md §7) goes as one UDPX stream (docs/UDPX.md §1.9): the
// encoder's records as they are made, decoded and written in order at the receiving end.
void attach_batch(udpx::UdpxTransferSpec& spec, TransferJob& job) {
  spec.shape.length = udpx::TransferShape::kUnknownLength;
  if (job.batch) {
    spec.source = std::make_unique<udpx::SpooledStreamSource>(
        [batch = job.batch](std::string& out, std::size_t want) {
          return batch->encoder.fill(out, want);
        });
    return;
  }
  spec.receiver.window_blocks = udpx::kOrderedWindowBlocks;
  spec.sink = std::make_unique<udpx::OrderedStreamSink>(
      [sink = job.batch_sink](std::span<const char> bytes) {
        return take_batch_bytes(*sink, bytes);
      },
      0, spec.shape.block_bytes, udpx::kOrderedWindowBlocks);
}

// Where a UDPX transfer's bytes come from or go to: the upload's file (through the restart's
// layout when `restart`), the retrieved file, or a listing's text. Returns the ranges a receiver
// has written, for its markers (null when this end sends).
Result<std::shared_ptr<udpx::WrittenRanges>> attach_file(udpx::UdpxTransferSpec& spec,
                                                         TransferJob& job, bool restart) {
  std::shared_ptr<udpx::WrittenRanges> written;
  if (job.upload) {
    written = std::make_shared<udpx::WrittenRanges>();
    const protocol::restart::ByteRangeSet nothing;
    // Writes gathered before the layout, which records only what reached the file.
    spec.sink = std::make_unique<udpx::CoalescingSink>(std::make_unique<udpx::LaidOutSink>(
        std::make_unique<udpx::FileBlockSink>(job.upload->fd()),
        protocol::udpx::RestartLayout(restart ? *job.present : nothing, 0,
                                      protocol::udpx::RestartLayout::kOpenEnd),
        written));
  } else if (job.source) {
    std::unique_ptr<udpx::BlockSource> file = std::make_unique<udpx::ReadAheadSource>(
        std::make_unique<udpx::FileBlockSource>(job.source->get()));
    if (restart) {
      // begin_retrieve lets a UDPX restart through for regular files only.
      const auto size = storage::regular_file_size(job.source->get());
      if (!size) return make_error(error_code_for(Condition::ParameterNotImplemented));
      protocol::udpx::RestartLayout layout(*job.present, 0, *size);
      spec.shape.length = layout.length();
      spec.source = std::make_unique<udpx::LaidOutSource>(std::move(file), std::move(layout));
    } else {
      // UDPX lays blocks out by offset, so the length is known before the first one:
      // begin_retrieve fitted the window to a regular file, and for a device (the /dev/zero of
      // memory-to-memory benchmarks) took it from ERET.
      if (job.length == UINT64_MAX)
        return make_error(error_code_for(Condition::ParameterNotImplemented));
      spec.shape.base = job.offset;
      spec.shape.length = job.length;
      spec.source = std::move(file);
    }
  } else {
    auto text = std::make_unique<TextBlockSource>(std::move(*job.listing));
    spec.shape.length = text->size();
    spec.source = std::move(text);
  }
  return written;
}

}  // namespace

bool TransferCommands::udpx_ready() const { return udpx_.enabled() && udpx_.is_configured(); }

std::shared_ptr<const DataSecurity> TransferCommands::udpx_dcau() {
  auto security = data_security();
  if (!security || !*security || (*security)->ftps) return nullptr;
  return *security;
}

transport::awaitable<Result<void>> TransferCommands::run_udpx(TransferJob& job) {
  namespace control = protocol::control;
  // As over TCP: a protection level the session cannot give (PROT P under DCAU N) fails the
  // transfer rather than run it in the clear.
  const auto security = data_security();
  if (!security) co_return make_error(security.error());
  const auto dcau = *security && !(*security)->ftps ? *security : nullptr;
  if (!dcau && !services_.config.udpx.allow_unauthenticated)  // require_data_channel_or_reply
    co_return make_error(error_code_for(Condition::ProtectionRequired));
  const auto protection = *security ? (*security)->protection : security::DataProtection::Clear;
  const bool active = udpx_.is_active();
  udpx::UdpxTransferSpec spec;
  spec.side = active ? udpx::Side::Active : udpx::Side::Passive;
  spec.peer = udpx_.active_peer();
  auto tls = key_exchange(dcau.get(), active);
  if (!tls) co_return make_error(tls.error());
  spec.tls = std::move(*tls);
  const auto& stack = udpx_.stack();
  const auto& limits = services_.config.udpx;
  spec.offer.target_rate_bps = limits.effective_rate(stack.rate_bps);
  spec.offer.min_rate_bps = std::min(stack.min_bps.value_or(0), spec.offer.target_rate_bps);
  spec.offer.policy = stack.policy.value_or(control::Policy::Fair);
  spec.offer.max_udp_payload = stack.mtu.value_or(1452);
  spec.offer.encrypt = protection == security::DataProtection::Private;
  spec.idle_timeout = static_cast<udpx::Microseconds>(limits.idle_timeout_seconds) * 1'000'000;
  if (services_.udpx_pool) spec.ceiling = UdpxRatePool::join(services_.udpx_pool);
  spec.shape.transfer_id = 1;
  spec.shape.block_bytes = static_cast<std::size_t>(spec.offer.max_udp_payload) - 48;
  // A restart (REST ranges before RETR or STOR) moves the stream of missing ranges, which both
  // ends lay out from the same list (docs/UDPX.md §8); with none, blocks go at file offsets.
  const bool restart = job.present && (job.command == "RETR" || job.command == "STOR");
  // What a receiving transfer holds, for its 111 markers: the restart's ranges and what it wrote.
  const bool batch = job.batch || job.batch_sink;
  Result<std::shared_ptr<udpx::WrittenRanges>> written{nullptr};
  if (batch) {
    attach_batch(spec, job);
  } else {
    written = attach_file(spec, job, restart);
  }
  if (!written) co_return make_error(written.error());
  auto socket = udpx_.take_socket(executor_);
  if (!socket) co_return make_error(socket.error());
  udpx_.live = std::make_shared<udpx::UdpxLive>();
  // A receiver sends 112 and 111 markers as over TCP MODE E, so a client can restart a failed
  // upload or third-party transfer with only the missing ranges.
  const auto held = [live = udpx_.live, written = *written,
                     present = restart ? *job.present : protocol::restart::ByteRangeSet{}, this] {
    transfer_.progress().bytes = live->bytes.load();
    auto ranges = written->snapshot();
    ranges.insert(present);
    return ranges;
  };
  const auto markers = *written ? start_markers(held, job.upload) : nullptr;
  auto report =
      co_await udpx::run_udpx_transfer_on_thread(std::move(*socket), std::move(spec), udpx_.live);
  if (markers) {
    stop_markers(*markers);
    send_perf_marker();
    co_await send_kept_ranges(held(), job.upload);
  }
  transfer_.progress().bytes = report.figures.bytes;
  figures_.note_link(std::string("udpx AES-128-GCM") +
                     (protection == security::DataProtection::Private ? "" : " (authenticated)") +
                     (dcau ? "" : ", unauthenticated keys") + " " +
                     protocol::udpx::describe(report.figures));
  log_->info("{} UDPX {} peer={} {} handshake_ms={:.0f}", tag_, job.command, report.peer_identity,
             protocol::udpx::describe(report.figures), report.figures.handshake_seconds * 1e3);
  udpx_.last_report = report;
  if (report.ok && job.upload && report.base != job.upload->start_offset()) {
    figures_.set_failure_detail("the UDPX sender began at another offset than REST said");
    co_return make_error(error_code_for(Condition::TransferFailed));
  }
  if (batch) co_return finish_udpx_batch(job, report);
  if (!report.ok) {
    figures_.set_failure_detail(report.error);
    co_return make_error(error_code_for(condition_of(report)));
  }
  co_return Result<void>{};
}

Result<void> TransferCommands::finish_udpx_batch(TransferJob& job,
                                                 const udpx::UdpxTransferReport& report) {
  Result<void> outcome;
  if (report.storage_error) {
    // The batch's own error (a bad path, a checksum), which the close code alone would only
    // call a storage error.
    outcome = make_error(report.storage_error);
  } else if (!report.ok) {
    figures_.set_failure_detail(report.error);
    outcome = make_error(error_code_for(condition_of(report)));
  } else if (job.batch_sink) {
    outcome = job.batch_sink->decoder().finish();
    if (outcome) outcome = check_batch_unsent(*job.batch_sink);
  }
  if (!outcome && job.batch_sink) job.batch_sink->abort();
  return outcome;
}

// SITE UDPX RATE <rate> (bit/s, k/M/G suffixes): the running transfer's new target where this
// end sends, or the cap its FEEDBACK asks the sender to keep under where it receives;
// SITE UDPX STAT: the running or last transfer's figures, and the server-wide cap's share.
void TransferCommands::on_site_udpx(const std::string& argument) {
  const auto space = argument.find(' ');
  const auto what = protocol::ascii_upper(argument.substr(0, space));
  const auto rest = space == std::string::npos ? std::string() : argument.substr(space + 1);
  if (what == "RATE") {
    auto rate = protocol::control::parse_rate(rest);
    if (!rate || *rate == 0) {
      replies_.send_error(Condition::BadSyntax, "SITE UDPX RATE wants a rate in bit/s, e.g. 500M.");
      return;
    }
    if (!transfer_.is_active() || !udpx_.live) {
      replies_.send_error(Condition::BadSequence, "No UDPX transfer is running.");
      return;
    }
    const auto bits = services_.config.udpx.effective_rate(*rate);
    udpx_.live->target_rate.store(static_cast<double>(bits) / 8);
    replies_.send(rc::kCommandOk, "UDPX rate set to " + std::to_string(bits) + " bit/s.");
    return;
  }
  if (what == "STAT") {
    std::vector<std::string> lines{"UDPX status:"};
    if (transfer_.is_active() && udpx_.live) {
      lines.push_back(" running bytes=" + std::to_string(udpx_.live->bytes.load()));
    }
    if (services_.udpx_pool) {
      lines.push_back(" server cap=" + std::to_string(services_.config.udpx.aggregate_rate_bps) +
                      " bit/s shared by " + std::to_string(services_.udpx_pool->running()) +
                      " running");
    }
    if (udpx_.last_report) {
      const auto& report = *udpx_.last_report;
      lines.push_back(" last " + std::string(report.ok ? "ok" : "failed") +
                      " bytes=" + std::to_string(report.figures.bytes) + " " +
                      protocol::udpx::describe(report.figures));
    }
    if (lines.size() == 1) lines.push_back(" no UDPX transfer yet");
    lines.push_back("End");
    replies_.send(protocol::control::Reply{rc::kCommandOk, std::move(lines)});
    return;
  }
  replies_.send_error(Condition::BadSyntax, "SITE UDPX takes RATE <bit/s> or STAT.");
}

}  // namespace gridftp::server
