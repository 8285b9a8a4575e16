// The commands that move data and the transfer they start: RETR STOR APPE ERET ESTO LIST NLST
// MLSD ABOR (RFC 959 §4.1.3, GFD.20) and the batch commands BRET BRST BSTO (docs/WIRE.md §7).
// Each validates what it can before its 150, then hands a TransferJob to the transfer coroutine
// (transfer_run.cpp: stream mode; mode_e_run.cpp; udpx_run.cpp) so that the control channel
// keeps answering STAT and ABOR meanwhile. Owns the running transfer (RunningTransfer) and its
// figures for the transfer log. Borrows the login (the user's storage), the namespace (path
// resolution), the transfer parameters, the control channel's security (what DCAU and PROT
// chose; data_connection_security.cpp builds it), the data channels DataSetupCommands set up,
// the services and the replies; the session behind TransferOwner keeps it alive while a
// transfer runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "protocol/control/command.hpp"
#include "protocol/control/reply_parser.hpp"
#include "protocol/restart/byte_range_set.hpp"
#include "protocol/restart/striped_markers.hpp"
#include "server/data/data_channel.hpp"
#include "server/data/mode_e_streams.hpp"
#include "server/data/udpx_channel.hpp"
#include "server/session/control_security.hpp"
#include "server/session/data_setup_commands.hpp"
#include "server/session/login_commands.hpp"
#include "server/session/namespace_commands.hpp"
#include "server/session/running_transfer.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/session_services.hpp"
#include "server/session/transfer_figures.hpp"
#include "server/session/transfer_job.hpp"
#include "server/session/transfer_parameter_commands.hpp"
#include "server/storage/posix_storage.hpp"
#include "transport/asio.hpp"
#include "transport/deadline.hpp"
#include "transport/socket_figures.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

// What a running transfer needs of the session it runs in, beyond the parts it borrows.
class TransferOwner {
 public:
  TransferOwner() = default;
  virtual ~TransferOwner() = default;
  TransferOwner(const TransferOwner&) = delete;
  TransferOwner& operator=(const TransferOwner&) = delete;

  // Held by the transfer's coroutines: the session (and so this part) outlives them.
  virtual std::shared_ptr<void> keep_alive() = 0;
  // The client closed the control connection: a stream-mode upload's EOF was then no
  // deliberate end of file.
  virtual bool control_peer_finished() const = 0;
};

// The parts of the session a transfer reads or sets up.
struct TransferParts {
  UserLogin& login;
  NamespaceCommands& names;
  TransferParameterCommands& parameters;
  ControlSecurity& security;
  DataChannels channels;
};

class TransferCommands {
 public:
  // `executor` is the session strand; `session_id` and `peer_address` go into the transfer log
  // (`peer_address` is filled in when the session starts); `tag` prefixes log lines ("[s7]").
  TransferCommands(SessionServices& services, transport::asio::any_io_executor executor,
                   TransferParts parts, SessionReplies& replies, TransferOwner& owner,
                   std::uint64_t session_id, const std::string& peer_address, std::string tag);
  TransferCommands(const TransferCommands&) = delete;
  TransferCommands& operator=(const TransferCommands&) = delete;

  transport::awaitable<void> on_retr(const std::string& argument);
  transport::awaitable<void> on_stor(const std::string& argument);
  transport::awaitable<void> on_appe(const std::string& argument);
  transport::awaitable<void> on_list(const std::string& argument);
  transport::awaitable<void> on_nlst(const std::string& argument);
  transport::awaitable<void> on_mlsd(const std::string& argument);
  transport::awaitable<void> on_abor(const std::string& argument);
  transport::awaitable<void> on_eret(const std::string& argument);
  transport::awaitable<void> on_esto(const std::string& argument);
  transport::awaitable<void> on_bret(const std::string& argument);
  transport::awaitable<void> on_brst(const std::string& argument);
  transport::awaitable<void> on_bsto(const std::string& argument);

  // The transfer under way, for what runs beside it (STAT, the idle watch, the session's close).
  RunningTransfer& running() { return transfer_; }
  // SITE STRIPE BEGIN|PART|SEND|COMMIT: a mover's part in its frontend's striped transfer
  // (docs/STRIPING.md); refused in any session not opened by a frontend.
  void on_site_stripe(const std::string& argument);
  // SITE UDPX RATE|STAT (udpx_run.cpp): steer or watch a running UDPX transfer.
  void on_site_udpx(const std::string& argument);
  // A LIST/NLST/MLSD listing's text (STAT with a path answers with it); nullopt once an error
  // reply has been sent.
  std::optional<std::string> build_listing(const std::string& argument,
                                           protocol::control::Verb verb);
  // Closes every data connection and listener of the running transfer (ABOR, a failed stream,
  // the session's end), and stops a UDPX transfer's thread.
  void close_data_streams();

 private:
  TransferSettings& settings() { return parameters_.settings(); }
  const TransferSettings& settings() const { return parameters_.settings(); }

  // TYPE I, MODE S, TCP: what BRET and BSTO need; replies 503 otherwise.
  bool check_batch_settings_or_reply(const char* command);
  bool require_data_channel_or_reply();
  // What DCAU/PROT require of the next data connections; null for DCAU N (clear, no handshake).
  // Errors: ProtectionRequired (PROT S/P without DCAU), DataConnection (no delegated credential).
  Result<std::shared_ptr<const DataSecurity>> data_security();
  // UDPX (udpx_run.cpp): chosen by SETNETSTACK and given an address by PASV/PORT.
  bool udpx_ready() const;
  // The session's DCAU TLS when it has one (null: DCAU N, ftp://, ftps://).
  std::shared_ptr<const DataSecurity> udpx_dcau();
  transport::awaitable<Result<void>> run_udpx(TransferJob& job);
  // A batch's outcome after its UDPX stream ended: the batch's own error first, then the
  // transfer's, then a stream cut short or files the sender left out.
  Result<void> finish_udpx_batch(TransferJob& job,
                                 const transport::udpx::UdpxTransferReport& report);
  // BSTO's last check, over TCP or UDPX: the sender's own unsent files fail the batch.
  Result<void> check_batch_unsent(const BatchSink& sink);

  void start_transfer(TransferJob job);
  // A STOR after SPAS or a RETR after SPOR on a frontend: the movers move the stripes
  // (striped_run.cpp). True when it was one (started, or answered with an error).
  // `present`: the transfer's REST ranges, handed to the movers.
  bool start_striped_if_set_up(const std::string& path, const char* command,
                               std::optional<protocol::restart::ByteRangeSet> present);
  transport::awaitable<void> run_striped(std::string path, std::string command, bool receiving,
                                         std::optional<protocol::restart::ByteRangeSet> present);
  // An unstriped transfer or listing after a PASV or PORT that went to the session's mover
  // (relayed_run.cpp): `command` runs there, after the restart and size the client gave.
  struct RelayedRestart {
    std::uint64_t offset = 0;                                // stream-mode REST
    std::optional<protocol::restart::ByteRangeSet> present;  // MODE E REST ranges
    std::optional<std::uint64_t> allocated;                  // ALLO
  };
  bool start_relayed_if_set_up(std::string command, RelayedRestart restart);
  transport::awaitable<void> run_relayed(std::string command, std::vector<std::string> preparation);
  // A striped STOR's markers, as one transfer's (protocol/restart/striped_markers.hpp).
  void relay_mover_marker(protocol::restart::StripedMarkers& markers, unsigned stripe,
                          const protocol::control::ParsedReply& reply);
  // Unix time in tenths of a second, for 112 markers.
  static std::int64_t now_tenths();
  transport::awaitable<void> run_transfer(TransferJob job);
  // Records one finished data connection for the transfer log: its TLS, and its kernel buffer
  // sizes when SBUF asked for a size (so the log shows what reached the socket).
  void note_data_connection(const transport::DataLink& link,
                            const transport::SocketFigures& figures);
  transport::awaitable<Result<void>> move_data(TransferJob& job, tcp::socket& socket,
                                               bool we_connected);
  // MODE E (mode_e_run.cpp): the sender must be active, the receiver passive (GFD.20).
  transport::awaitable<Result<void>> send_mode_e(TransferJob& job);
  transport::awaitable<Result<void>> receive_mode_e(TransferJob& job);
  // A MODE E receiver's listener: accepts connections from the expected peer, each handed to
  // `start_stream`, until the listener closes or `complete()`; an unexpected peer ends it with
  // UnexpectedDataPeer. Each connection restarts `accept_deadline` at `timeout`.
  transport::awaitable<Result<void>> accept_mode_e_streams(
      tcp::acceptor& acceptor, transport::Deadline& accept_deadline, std::chrono::seconds timeout,
      const std::function<bool()>& complete,
      const std::function<void(const DataStreamPtr&)>& start_stream);
  // A receiving transfer's 112 and 111 markers: one at the start, then every marker_seconds
  // (TREV) until stop_markers, `received` giving the ranges held so far.
  struct MarkerTimer;  // mode_e_run.cpp
  // A durable `upload`'s 111 markers name only ranges its fdatasync has kept (docs/STORAGE.md).
  std::shared_ptr<MarkerTimer> start_markers(
      std::function<protocol::restart::ByteRangeSet()> received,
      std::shared_ptr<storage::Upload> upload);
  void stop_markers(MarkerTimer& markers);
  transport::awaitable<void> send_markers(std::function<protocol::restart::ByteRangeSet()> received,
                                          std::shared_ptr<MarkerTimer> markers);
  void send_perf_marker();
  // MODE E blocks sent ([storage] block_bytes, Globus's -bs).
  std::size_t block_bytes() const {
    return static_cast<std::size_t>(services_.config.storage.block_bytes);
  }
  // One 111 marker of `ranges`, received before the call; for a durable `upload` only after
  // they are on stable storage (a failed sync sends none: the marker would promise too much).
  transport::awaitable<void> send_kept_ranges(protocol::restart::ByteRangeSet ranges,
                                              std::shared_ptr<storage::Upload> upload);
  // Upload::commit, off the session strand when durable: an fdatasync can take seconds.
  transport::awaitable<Result<void>> commit_upload(std::shared_ptr<storage::Upload> upload);
  bool can_reuse_streams(bool sending) const;
  void send_range_marker(const protocol::restart::ByteRangeSet& ranges);
  transport::awaitable<void> begin_retrieve(const std::string& path_argument, std::uint64_t offset,
                                            std::uint64_t length, const char* command);
  // In stream mode a dying client's FIN looks like EOF; these tell a cut-off upload apart.
  Result<void> check_upload_complete(const TransferJob& job);
  void finish_transfer(const TransferJob& job, const Result<void>& outcome,
                       std::chrono::steady_clock::time_point started);
  transport::awaitable<void> start_listing(const std::string& argument,
                                           protocol::control::Verb verb);
  transport::awaitable<void> begin_upload(const std::string& argument, storage::UploadMode mode,
                                          const char* command);

  SessionServices& services_;
  const transport::asio::any_io_executor executor_;
  std::shared_ptr<spdlog::logger> log_;
  const std::string tag_;
  const std::uint64_t session_id_;
  const std::string& peer_address_;
  SessionReplies& replies_;
  TransferOwner& owner_;

  UserLogin& login_;
  NamespaceCommands& namespace_commands_;
  TransferParameterCommands& parameters_;
  ControlSecurity& security_;
  DataChannel& data_channel_;
  UdpxChannel& udpx_;
  StreamCache& stream_cache_;
  striping::MoverStripes* movers_;  // a frontend's movers (null: none)

  RunningTransfer transfer_;
  TransferFigures figures_;  // the running transfer's data connections, for the transfer log
};

}  // namespace gridftp::server
