// The life of one stream-mode transfer: 150, open the data connection, move the bytes, close,
// then exactly one final reply (226, or the error's reply), one transfer-log line, and the
// upload committed or removed. Runs as its own coroutine on the session strand.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include "protocol/control/reply_codes.hpp"
#include "protocol/control/reply_for_error.hpp"
#include "protocol/core/errors.hpp"
#include "server/data/batch_transfer.hpp"
#include "server/data/stall_watch.hpp"
#include "server/session/transfer/transfer_commands.hpp"
#include "transport/peer_address.hpp"
#include "transport/socket_buffer.hpp"
#include "transport/socket_stream.hpp"

namespace gridftp::server {

namespace rc = protocol::control::reply_code;

namespace {

// The file a session's path names in the file system (its root joined with the path), as
// Globus's transfer log shows it: "/data/run1", no trailing slash.
std::string file_system_path(const std::filesystem::path& root, const std::string& path) {
  const std::filesystem::path base = root.empty() ? std::filesystem::path("/") : root;
  auto joined = (base / std::filesystem::path(path).relative_path()).lexically_normal().string();
  while (joined.size() > 1 && joined.back() == '/') joined.pop_back();
  return joined;
}

}  // namespace

TransferCommands::TransferCommands(SessionServices& services, asio::any_io_executor executor,
                                   TransferParts parts, SessionReplies& replies,
                                   TransferOwner& owner, std::uint64_t session_id,
                                   const std::string& peer_address, std::string tag)
    : services_(services),
      executor_(std::move(executor)),
      log_(services.log),
      tag_(std::move(tag)),
      session_id_(session_id),
      peer_address_(peer_address),
      replies_(replies),
      owner_(owner),
      login_(parts.login),
      namespace_commands_(parts.names),
      parameters_(parts.parameters),
      security_(parts.security),
      data_channel_(parts.channels.tcp),
      udpx_(parts.channels.udpx),
      stream_cache_(parts.channels.cached_streams),
      movers_(parts.channels.movers),
      transfer_(executor_) {}

bool TransferCommands::require_data_channel_or_reply() {
  if (udpx_.enabled()) {
    if (!udpx_.is_configured()) {
      replies_.send_error(Condition::DataConnection,
                          "Use PORT or PASV first (the UDPX data channel needs an address).");
      return false;
    }
    // UDPX keys come from DCAU's TLS (docs/UDPX.md §4.1): without it there is no key that
    // both ends authenticated, and UDPX is refused before the transfer begins unless the
    // config accepts unauthenticated keys.
    if (udpx_dcau() || services_.config.udpx.allow_unauthenticated) return true;
    replies_.send_error(
        Condition::ProtectionRequired,
        "UDPX needs data channel authentication (DCAU A or S): its keys come from DCAU's TLS.");
    return false;
  }
  if (data_channel_.is_configured() || (settings().mode_e && !stream_cache_.is_empty()))
    return true;
  replies_.send_error(Condition::DataConnection, "Use PORT or PASV first.");
  return false;
}

void TransferCommands::start_transfer(TransferJob job) {
  transfer_.begin();
  figures_ = {};
  asio::co_spawn(executor_, run_transfer(std::move(job)), asio::detached);
}

transport::awaitable<void> TransferCommands::run_transfer(TransferJob job) {
  const auto self = owner_.keep_alive();
  const auto started = std::chrono::steady_clock::now();
  if (can_reuse_streams(!job.upload)) {
    replies_.send(rc::kDataAlreadyOpen, "Beginning transfer; reusing existing data connection.");
  } else {
    replies_.send(rc::kFileStatusOk,
                  std::string("Opening ") + settings().type_name() + " mode data connection.");
  }
  Result<void> outcome;
  if (udpx_.enabled()) {
    outcome = co_await run_udpx(job);
  } else if (settings().mode_e) {
    // if/else, not ?: — GCC 12 miscompiles co_await inside a conditional expression.
    if (job.upload) {
      outcome = co_await receive_mode_e(job);
    } else {
      outcome = co_await send_mode_e(job);
    }
  } else {
    const auto timeout = std::chrono::seconds(services_.config.timeouts.data_seconds);
    const bool we_connect = !data_channel_.is_passive();
    // After TREV RESTART a binary STOR reports what it holds in 111 markers as MODE E does, so
    // the client can resume it (REST n + STOR) after a failure, even one that kills us.
    std::shared_ptr<MarkerTimer> markers;
    const auto held = [this, start = job.upload ? job.upload->start_offset() : 0] {
      protocol::restart::ByteRangeSet ranges;
      ranges.insert(0, start + transfer_.progress().bytes);
      return ranges;
    };
    if (job.upload && settings().restart_markers && !settings().ascii && job.command == "STOR") {
      markers = start_markers(held, job.upload);
    }
    auto socket = co_await data_channel_.open(timeout);
    if (!socket) {
      outcome = make_error(transfer_.abort_requested() ? error_code_for(Condition::TransferAborted)
                                                       : socket.error());
    } else {
      transfer_.hold_socket(*socket);
      outcome = co_await move_data(job, **socket, we_connect);
      boost::system::error_code ignored;
      // Stream mode: our close is the sender's EOF, so shut down cleanly before closing.
      (*socket)->shutdown(tcp::socket::shutdown_both, ignored);
      (*socket)->close(ignored);
      transfer_.release_socket();
    }
    if (outcome && job.upload) outcome = check_upload_complete(job);
    if (markers) {
      stop_markers(*markers);
      if (!outcome) co_await send_kept_ranges(held(), job.upload);  // what a restart can count on
    }
  }
  if (outcome && job.upload) outcome = co_await commit_upload(job.upload);
  if (!outcome && job.upload) job.upload->abort();
  if (!outcome && transfer_.abort_requested())
    outcome = make_error(error_code_for(Condition::TransferAborted));
  finish_transfer(job, outcome, started);
  transfer_.end();
}

transport::awaitable<Result<void>> TransferCommands::move_data(TransferJob& job,
                                                               tcp::socket& socket,
                                                               bool we_connected) {
  const auto timeout = std::chrono::seconds(services_.config.timeouts.data_seconds);
  auto security = data_security();
  if (!security) co_return make_error(security.error());
  transport::DataLink link;
  if (*security) {
    auto deadline = close_on_stall(socket.get_executor(), socket, timeout);
    auto secured = co_await secure_data_link(link, socket, **security, we_connected);
    deadline->stop();
    if (!secured) co_return make_error(stall_or(*deadline, secured.error()));
  }
  transport::SocketStream stream(socket, link);
  if (job.batch_sink) {
    auto received = co_await receive_batch(stream, *job.batch_sink, timeout, transfer_.progress());
    if (received) received = check_batch_unsent(*job.batch_sink);
    note_data_connection(link, transport::read_socket_figures(socket));
    co_return received;
  }
  if (job.upload) {
    auto received =
        co_await receive_into(stream, *job.upload, settings().ascii, timeout, transfer_.progress());
    note_data_connection(link, transport::read_socket_figures(socket));
    co_return received;
  }
  Result<void> sent;
  if (job.batch) {
    sent = co_await send_batch(stream, *job.batch, timeout, transfer_.progress());
  } else if (job.source) {
    sent =
        co_await send_file(stream, job.source->get(), job.offset, job.length, settings().ascii,
                           sendfile_use(services_.config.storage), timeout, transfer_.progress());
  } else {
    sent = co_await send_text(stream, std::move(*job.listing), timeout, transfer_.progress());
  }
  if (sent) {
    // TLS clients (FTPS above all) expect close_notify before the FIN that ends the file.
    std::error_code ec;
    co_await stream.finish(ec);
  }
  note_data_connection(link, transport::read_socket_figures(socket));
  co_return sent;
}

Result<void> TransferCommands::check_batch_unsent(const BatchSink& sink) {
  if (sink.unsent() == 0) return {};
  // Everything that came is stored; the sender's own failures still fail the batch.
  figures_.set_failure_detail(std::to_string(sink.unsent()) +
                              " files were not sent by the sender, the first " +
                              sink.first_unsent());
  return make_error(error_code_for(Condition::TransferFailed));
}

void TransferCommands::note_data_connection(const transport::DataLink& link,
                                            const transport::SocketFigures& figures) {
  figures_.note_connection(link.describe(), figures, data_channel_.socket_buffer() != 0);
}

Result<void> TransferCommands::check_upload_complete(const TransferJob& job) {
  if (job.expected_bytes && !settings().ascii && transfer_.progress().bytes < *job.expected_bytes) {
    log_->warn("{} {} ended at {} of {} announced bytes", tag_, job.command,
               transfer_.progress().bytes, *job.expected_bytes);
    return make_error(error_code_for(Condition::TransferFailed));
  }
  // A client that died closes control and data together; if control is already at EOF the data
  // EOF was not a deliberate end of file.
  if (owner_.control_peer_finished() || transfer_.abort_requested())
    return make_error(error_code_for(Condition::TransferAborted));
  return {};
}

void TransferCommands::finish_transfer(const TransferJob& job, const Result<void>& outcome,
                                       std::chrono::steady_clock::time_point started) {
  const auto elapsed = std::chrono::steady_clock::now() - started;
  int reply_code = rc::kClosingData;
  if (outcome && job.batch) {
    replies_.send(rc::kClosingData,
                  "Transfer complete: " + std::to_string(job.batch->encoder.files_sent()) +
                      " files sent, " + std::to_string(job.batch->encoder.unreadable()) +
                      " unreadable.");
  } else if (outcome && job.batch_sink) {
    replies_.send(rc::kClosingData,
                  "Transfer complete: " + std::to_string(job.batch_sink->files_stored()) +
                      " files, " + std::to_string(job.batch_sink->bytes_stored()) +
                      " bytes stored.");
  } else if (outcome) {
    replies_.send(rc::kClosingData, "Transfer complete.");
  } else {
    auto reply = protocol::control::reply_for_error(outcome.error());
    if (!figures_.failure_detail().empty())
      reply.lines.back() += " " + figures_.failure_detail() + ".";
    reply_code = reply.code;
    replies_.send(std::move(reply));
  }
  TransferRecord record;
  record.session_id = session_id_;
  record.user = login_.user() ? login_.user()->name : "";
  record.command = job.command;
  record.path = job.path;
  record.bytes = transfer_.progress().bytes;
  record.streams = settings().mode_e
                       ? std::max<unsigned>(1, static_cast<unsigned>(stream_cache_.streams_used()))
                       : 1;
  record.mode = settings().mode_e ? 'E' : 'S';
  record.duration = elapsed;
  record.security = security_.label();
  record.ok = outcome.has_value();
  if (!outcome) record.error = outcome.error().message();
  figures_.fill(record, data_channel_.socket_buffer(), job.upload || job.batch_sink, peer_address_);
  if (udpx_.enabled()) {
    record.network = "udpx";
    if (udpx_.last_report) record.udpx = udpx_.last_report->figures;
  }
  record.started_at = std::chrono::system_clock::now() -
                      std::chrono::duration_cast<std::chrono::system_clock::duration>(elapsed);
  record.reply_code = static_cast<unsigned>(reply_code);
  record.file =
      file_system_path(login_.user() ? login_.user()->root : std::filesystem::path(), job.path);
  record.block_size = block_bytes();  // MODE E's blocks; stream mode has none
  services_.transfer_log.write(record);
  if (services_.metrics) services_.metrics->transfer(record);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
  if (outcome) {
    log_->info("{} {} done path={} bytes={} ms={}", tag_, job.command, job.path,
               transfer_.progress().bytes, ms);
  } else {
    log_->warn("{} {} failed path={} bytes={} ms={} error={}", tag_, job.command, job.path,
               transfer_.progress().bytes, ms, outcome.error().message());
  }
}

}  // namespace gridftp::server
