// One control connection, from greeting to close. Runs as coroutines on its own strand (the
// control stream's executor): one reads commands, one writes replies in order, at most one runs
// the current transfer. A command runs on the part that owns its state when there is one
// (LoginCommands: USER, PASS and who is logged in; NamespaceCommands: the working directory and
// CWD, MKD, RNFR...; DataSetupCommands: PASV, PORT, SPAS, SPOR...; TransferParameterCommands: TYPE,
// MODE, REST...; ProtectionCommands: DCAU, PROT, PBSZ; DiscoveryCommands: FEAT, HELP...;
// ChecksumCommands: CKSM; TransferCommands: RETR, STOR, ABOR... and the running transfer), which
// reaches only what it is handed at construction and answers through SessionReplies. The
// commands of the control channel itself (AUTH, ADAT) and those that report on or reach into
// several parts (STAT, SITE) are members, defined in handlers/*.cpp. command_table.cpp maps verbs
// to either.
//
// The control channel is a transport::ByteStream (docs/ARCHITECTURE.md, "The byte-stream seam"):
// a TcpStream over the accepted socket in gridftpd, a MemoryStream in unit tests
// (tests/unit/server/session_harness.hpp), with TLS put around it by AUTH TLS.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

#include "protocol/control/command.hpp"
#include "protocol/control/reply.hpp"
#include "protocol/control/session_rules.hpp"
#include "protocol/core/errors.hpp"
#include "server/data/data_channel.hpp"
#include "server/data/udpx_channel.hpp"
#include "server/session/checksum_commands.hpp"
#include "server/session/control_endpoints.hpp"
#include "server/session/control_security.hpp"
#include "server/session/data_setup_commands.hpp"
#include "server/session/discovery_commands.hpp"
#include "server/session/login_commands.hpp"
#include "server/session/namespace_commands.hpp"
#include "server/session/protection_commands.hpp"
#include "server/session/reply_writer.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/session_services.hpp"
#include "server/session/stream_cache.hpp"
#include "server/session/transfer/transfer_commands.hpp"
#include "server/session/transfer_parameter_commands.hpp"
#include "transport/byte_stream.hpp"

namespace gridftp::server {

class ControlSession : public std::enable_shared_from_this<ControlSession>,
                       private SessionReplies,
                       private TransferOwner {
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
  // The part that runs RETR, STOR, LIST, ABOR and the other transfer commands, and owns the
  // running transfer (command_table.cpp).
  TransferCommands& transfer_commands() { return transfer_commands_; }
  // The part that runs CKSM (command_table.cpp).
  ChecksumCommands& checksum_commands() { return checksum_commands_; }
  // The part that runs NOOP, SYST, FEAT, HELP and LANG (command_table.cpp).
  DiscoveryCommands& discovery_commands() { return discovery_commands_; }

  // Handlers of the commands no part owns yet (command_table.cpp lists which verb runs which).
  transport::awaitable<void> on_auth(const std::string& argument);
  transport::awaitable<void> on_stat(const std::string& argument);
  transport::awaitable<void> on_site(const std::string& argument);
  void on_set_net_stack(const std::string& stack);
  void on_site_partials(const std::string& argument);
  void on_site_durable(const std::string& argument);
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
  // A mover's connection: the TLS handshake in which the frontend proves its host certificate,
  // before the greeting (docs/STRIPING.md). False: refused or failed, the connection closes.
  transport::awaitable<bool> accept_frontend();
  void fail_authentication(const std::error_code& ec,
                           std::string detail);  // 530, and forget the exchange
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
  // TransferOwner: the transfer's coroutines hold the session; the control peer's FIN.
  std::shared_ptr<void> keep_alive() override { return shared_from_this(); }
  bool control_peer_finished() const override { return control_->peer_has_finished(); }

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

  StreamCache stream_cache_;
  DataSetupCommands data_setup_commands_;  // sets up data_channel_ or udpx_ for the next transfer
  TransferParameterCommands transfer_parameters_;  // TYPE, MODE, REST...: TransferSettings
  ProtectionCommands protection_commands_;         // DCAU, PROT: security_'s data-channel half
  striping::MoverStripes movers_;                  // a frontend's movers, set up by SPAS/SPOR
  TransferCommands transfer_commands_;             // RETR, STOR, LIST...: the running transfer

  // Idle and login timeouts.
  asio::steady_timer idle_timer_;
  std::chrono::steady_clock::time_point idle_expiry_;
  bool closed_ = false;
};

}  // namespace gridftp::server
