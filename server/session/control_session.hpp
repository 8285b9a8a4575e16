// One control connection, from greeting to close. Runs as coroutines on its own strand (the
// control stream's executor): one reads commands, one writes replies in order, at most one runs
// the current transfer. A command runs on the part that owns its state when there is one
// (LoginCommands: USER, PASS and who is logged in; NamespaceCommands: the working directory and
// CWD, MKD, RNFR...; DataSetupCommands: PASV, PORT, SPAS, SPOR...; TransferParameterCommands: TYPE,
// MODE, REST...; ProtectionCommands: DCAU, PROT, PBSZ; DiscoveryCommands: FEAT, HELP...), which
// reaches only what it is handed at construction and answers through SessionReplies; the other
// handlers are still members, defined in handlers/*.cpp, one file per area. command_table.cpp maps
// verbs to either.
//
// The control channel is a transport::ByteStream (docs/ARCHITECTURE.md, "The byte-stream seam"):
// a TcpStream over the accepted socket in gridftpd, a MemoryStream in unit tests
// (tests/unit/server/session_harness.hpp), with TLS put around it by AUTH TLS.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "protocol/control/command.hpp"
#include "protocol/control/reply.hpp"
#include "protocol/control/session_rules.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/restart/byte_range_set.hpp"
#include "server/auth/authenticator.hpp"
#include "server/data/data_channel.hpp"
#include "server/data/mode_e_streams.hpp"
#include "server/data/stream_transfer.hpp"
#include "server/data/udpx_channel.hpp"
#include "server/logging/transfer_log.hpp"
#include "server/session/checksum_commands.hpp"
#include "server/session/control_endpoints.hpp"
#include "server/session/control_security.hpp"
#include "server/session/data_setup_commands.hpp"
#include "server/session/discovery_commands.hpp"
#include "server/session/login_commands.hpp"
#include "server/session/namespace_commands.hpp"
#include "server/session/protection_commands.hpp"
#include "server/session/reply_writer.hpp"
#include "server/session/running_transfer.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/session_services.hpp"
#include "server/session/stream_cache.hpp"
#include "server/session/transfer_figures.hpp"
#include "server/session/transfer_job.hpp"
#include "server/session/transfer_parameter_commands.hpp"
#include "server/storage/posix_storage.hpp"
#include "transport/byte_stream.hpp"
#include "transport/deadline.hpp"
#include "transport/socket_figures.hpp"

namespace gridftp::server {

class ControlSession : public std::enable_shared_from_this<ControlSession>, private SessionReplies {
 public:
  // `control` carries the commands and replies; its executor must be a strand (or a
  // one-threaded io_context), which every coroutine of the session runs on.
  ControlSession(std::unique_ptr<transport::ByteStream> control, ControlEndpoints endpoints,
                 SessionServices& services, std::uint64_t id);
  ControlSession(const ControlSession&) = delete;
  ControlSession& operator=(const ControlSession&) = delete;
  ~ControlSession() override;

  transport::awaitable<void> run();
  // Thread-safe: ends the session (server shutdown): 421, abort any transfer, close.
  void request_close();

  // The part that runs USER, PASS, ACCT and QUIT (command_table.cpp).
  LoginCommands& login_commands() { return login_commands_; }
  // The part that runs CWD, MKD, RNFR and the other namespace commands (command_table.cpp).
  NamespaceCommands& namespace_commands() { return namespace_commands_; }
  // The part that runs PASV, EPSV, PORT, EPRT, SPAS, SPOR and SBUF (command_table.cpp).
  DataSetupCommands& data_setup_commands() { return data_setup_commands_; }
  // The part that runs TYPE, MODE, STRU, ALLO, REST, TREV and OPTS (command_table.cpp).
  TransferParameterCommands& transfer_parameters() { return transfer_parameters_; }
  // The part that runs PBSZ, PROT and DCAU (command_table.cpp).
  ProtectionCommands& protection_commands() { return protection_commands_; }
  // The part that runs CKSM (command_table.cpp).
  ChecksumCommands& checksum_commands() { return checksum_commands_; }
  // The part that runs NOOP, SYST, FEAT, HELP and LANG (command_table.cpp).
  DiscoveryCommands& discovery_commands() { return discovery_commands_; }

  // Handlers of the commands no part owns yet (command_table.cpp lists which verb runs which).
  transport::awaitable<void> on_auth(const std::string& argument);
  transport::awaitable<void> on_stat(const std::string& argument);
  transport::awaitable<void> on_site(const std::string& argument);
  void on_set_net_stack(const std::string& stack);
  void on_site_udpx(const std::string& argument);
  void on_site_partials(const std::string& argument);
  void on_site_durable(const std::string& argument);
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
  // TYPE I, MODE S, TCP: what BRET and BSTO need; replies 503 otherwise.
  bool check_batch_settings_or_reply(const char* command);
  transport::awaitable<void> on_adat(const std::string& argument);

 private:
  transport::awaitable<void> read_commands();
  // A line off the wire: unwrapped first when the control channel is protected (RFC 2228).
  transport::awaitable<void> execute(const std::string& line);
  transport::awaitable<void> execute_plain(const std::string& line);
  // GSI (handlers/security_commands.cpp).
  bool security_required() const;
  transport::awaitable<void> execute_protected(const protocol::control::Command& command);
  std::string protect_reply(const std::string& formatted);
  void fail_authentication(const std::error_code& ec,
                           std::string detail);  // 530, and forget the exchange
  // What DCAU/PROT require of the next data connections; null for DCAU N (clear, no handshake).
  // Errors: ProtectionRequired (PROT S/P without DCAU), DataConnection (no delegated credential).
  Result<std::shared_ptr<const DataSecurity>> data_security();
  transport::awaitable<void> watch_idle();
  void touch_idle();

  // Replies leave in the order queued (ReplyWriter); send() formats and, once the control
  // channel is protected, wraps them first. send_error() (SessionReplies) goes through it.
  void send(protocol::control::Reply reply) override;
  using SessionReplies::send;
  // Starts the writer when queue() or close_after_drain() says none is running.
  void start_drain_if_needed(bool needed);
  transport::awaitable<void> drain_replies();
  void close_after_replies() override;

  bool require_data_channel_or_reply();
  // UDPX (session_udpx.cpp): chosen by SETNETSTACK and given an address by PASV/PORT.
  bool udpx_ready() const;
  // The session's DCAU TLS when it has one (null: DCAU N, ftp://, ftps://).
  std::shared_ptr<const DataSecurity> udpx_dcau();
  transport::awaitable<Result<void>> run_udpx(TransferJob& job);

  void start_transfer(TransferJob job);
  transport::awaitable<void> run_transfer(TransferJob job);
  // Records one finished data connection for the transfer log: its TLS, and its kernel buffer
  // sizes when SBUF asked for a size (so the log shows what reached the socket).
  void note_data_connection(const transport::DataLink& link,
                            const transport::SocketFigures& figures);
  transport::awaitable<Result<void>> move_data(TransferJob& job, tcp::socket& socket,
                                               bool we_connected);
  // MODE E (session_mode_e.cpp): the sender must be active, the receiver passive (GFD.20).
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
  struct MarkerTimer;  // session_mode_e.cpp
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
  // Closes every data connection and listener of the running transfer (ABOR, a failed stream),
  // and stops a UDPX transfer's thread.
  void close_data_streams();
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
  std::optional<std::string> build_listing(const std::string& argument,
                                           protocol::control::Verb verb);
  transport::awaitable<void> begin_upload(const std::string& argument, storage::UploadMode mode,
                                          const char* command);
  std::string tag() const;
  void leave_registry();
  // Who is logged in, their storage and home (LoginCommands owns it).
  UserLogin& login() { return login_commands_.login(); }
  const UserLogin& login() const { return login_commands_.login(); }
  // What the client set for the next transfers (TransferParameterCommands owns it).
  TransferSettings& settings() { return transfer_parameters_.settings(); }
  const TransferSettings& settings() const { return transfer_parameters_.settings(); }

  std::unique_ptr<transport::ByteStream> control_;
  const ControlEndpoints endpoints_;
  const asio::any_io_executor executor_;  // the session strand
  SessionServices& services_;
  const std::uint64_t id_;
  std::shared_ptr<spdlog::logger> log_;
  bool entered_registry_ = false;
  std::string peer_address_;  // the control peer, as the registry counts it per address

  ReplyWriter replies_;
  DiscoveryCommands discovery_commands_;  // NOOP, FEAT...: what the server offers

  LoginCommands login_commands_;          // USER, PASS...: who is logged in (UserLogin)
  NamespaceCommands namespace_commands_;  // the working directory and a pending rename
  ChecksumCommands checksum_commands_;    // CKSM: no state of its own

  ControlSecurity security_;
  DataChannel data_channel_;
  UdpxChannel udpx_;

  RunningTransfer transfer_;
  TransferFigures figures_;  // the running transfer's data connections, for the transfer log
  StreamCache stream_cache_;
  DataSetupCommands data_setup_commands_;  // sets up data_channel_ or udpx_ for the next transfer
  TransferParameterCommands transfer_parameters_;  // TYPE, MODE, REST...: TransferSettings
  ProtectionCommands protection_commands_;         // DCAU, PROT: security_'s data-channel half

  // Idle and login timeouts.
  asio::steady_timer idle_timer_;
  std::chrono::steady_clock::time_point idle_expiry_;
  bool closed_ = false;
};

}  // namespace gridftp::server
