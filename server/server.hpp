// The running server: one io_context on a pool of I/O threads for control sessions, one
// single-threaded loop per core for data streams, the control listener, a small pool for
// blocking work, and a registry of live sessions for limits and shutdown.
#pragma once

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"
#include "security/key_pool.hpp"
#include "server/auth/authenticator.hpp"
#include "server/auth/gsi_context.hpp"
#include "server/config/server_config.hpp"
#include "server/logging/log_setup.hpp"
#include "server/logging/transfer_log.hpp"
#include "server/metrics/metrics_endpoint.hpp"
#include "server/process/fork_server.hpp"
#include "server/process/session_process.hpp"
#include "server/session/session_registry.hpp"
#include "server/session/session_services.hpp"
#include "transport/asio.hpp"
#include "transport/event_loop.hpp"
#include "transport/loop_pool.hpp"
#include "transport/peer_address.hpp"

namespace gridftp::server {

class ControlSession;

class Server {
 public:
  // `gsi` is null unless gsi.enabled.
  Server(ServerConfig config, std::vector<auth::Account> accounts,
         std::shared_ptr<const auth::GsiContext> gsi, security::SslCtxPtr ftps, Loggers loggers);
  ~Server();

  // Binds the control listener. Errors: errno from bind/listen.
  Result<transport::tcp::endpoint> bind();
  // Accepts and serves until stop(); runs the I/O threads and returns when they end.
  void run();
  // Thread-safe: stop accepting, tell sessions to close, then end after the grace period.
  void stop();
  // What a SIGHUP re-read, already checked: the whole config, the password file's accounts and,
  // with GSI, the gridmap.
  struct Reload {
    ServerConfig config;
    std::vector<auth::Account> accounts;
    std::optional<security::Gridmap> gridmap;
  };
  // Thread-safe. Running sessions are kept. Applied at once: the accounts and the gridmap (for
  // logins from now on) and the log level; every other changed key is named in the log as
  // applied only by a restart (session processes, exec'd per connection, read it anyway).
  void apply_reload(Reload reload);
  // Process-per-session mode: each accepted connection goes to a new process, forked by a
  // fork server started with these arguments (the parent's argv[1..]) or, with
  // gsi.fork_server off or the fork server gone, exec'd with them; not served here.
  void spawn_sessions_with(std::vector<std::string> arguments);
  // The metrics counters, and with [metrics] enabled their scrape endpoint: its address, or
  // nullopt when disabled. Errors: the endpoint's address cannot be bound.
  Result<std::optional<transport::tcp::endpoint>> open_metrics();
  // A session process: serves the one connection on `fd`, then run() returns. `key_fd` carries
  // a delegation key the parent made ahead (see security/key_pool.hpp), `pages` the parent's
  // shared pages (UDPX rate pool, metrics).
  void serve_inherited(int fd, std::optional<int> key_fd, InheritedPages pages);

 private:
  // bind()'s fallback for "::" where the kernel has no IPv6.
  Result<transport::tcp::endpoint> bind_every_ipv4_interface();
  transport::awaitable<void> accept_loop();
  transport::awaitable<void> reap_session_processes();
  // Process-per-session mode (server/server_processes.cpp): the accepted `socket` goes to a
  // session process, through the fork server when one runs.
  void hand_to_session_process(transport::tcp::socket& socket, const std::string& address);
  bool hand_to_fork_server(transport::tcp::socket& socket, const std::string& address,
                           const std::string& key_pem, InheritedPages pages);
  // Starts a fork server with spawn_arguments_ and retires the one it replaces; null when it
  // cannot start (exec'd session processes then).
  std::shared_ptr<ForkServerLink> start_fork_server();
  transport::awaitable<void> read_fork_server_reports(std::shared_ptr<ForkServerLink> link);
  void take_fork_server_report(const ForkServerLink& link, const ForkServerReport& report);
  void forget_fork_server(const ForkServerLink& link);
  // A session over an accepted control socket (a clear TcpStream until AUTH changes it).
  std::shared_ptr<ControlSession> make_session(transport::tcp::socket socket, std::uint64_t id);
  transport::awaitable<void> serve(std::shared_ptr<ControlSession> session);
  void shut_down_sessions();
  // A 421 to a connection over [limits], sent without waiting, before it is closed.
  void refuse_connection(transport::tcp::socket& socket, const std::string& address,
                         SessionRegistry::Admission refusal);
  // A session process ended with wait `status` (reaped here or by the fork server): its place
  // in registry_ comes back, and a crash or failure is logged.
  void session_process_ended(pid_t pid, int status);
  transport::awaitable<void> finish_shutdown();

  ServerConfig config_;
  Loggers loggers_;
  // Declared before io_context_ so that it is destroyed after it: coroutines queued on either
  // may own sockets of the other (see ~Server).
  transport::LoopPool data_loops_;
  transport::EventLoop io_context_;
  transport::asio::thread_pool blocking_pool_{2};
  SessionRegistry registry_;
  auth::Authenticator authenticator_;
  std::shared_ptr<const auth::GsiContext> gsi_;
  security::SslCtxPtr ftps_;
  TransferLog transfer_log_;
  SessionServices services_;
  transport::tcp::acceptor acceptor_;
  std::atomic<std::uint64_t> next_session_id_{1};
  std::mutex sessions_mutex_;
  std::list<std::weak_ptr<ControlSession>> sessions_;
  std::map<pid_t, std::string> session_processes_;  // live session processes and their peers
  // Connections handed to a fork server whose session pid has not come back yet, by request
  // number: the peer address, and the fork server's pid.
  struct PendingSpawn {
    std::string address;
    pid_t fork_server = 0;
  };
  std::map<std::uint64_t, PendingSpawn> pending_spawns_;
  std::uint64_t next_spawn_request_ = 1;
  std::shared_ptr<ForkServerLink> fork_server_;  // under sessions_mutex_; null when none runs
  bool forks_sessions_ = false;  // session processes come from a fork server when one runs
  std::atomic<bool> stopping_{false};
  // The control listener is bound and not yet closed by stop(): what /readyz reports.
  std::atomic<bool> accepting_{false};
  std::optional<std::vector<std::string>> spawn_arguments_;
  std::unique_ptr<security::KeyPool> delegation_keys_;
  std::shared_ptr<MetricsEndpoint> metrics_endpoint_;
  bool serves_one_session_ = false;  // a session process: one control thread is enough
};

}  // namespace gridftp::server
