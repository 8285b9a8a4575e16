#include "server/server.hpp"

#include <thread>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/control/reply.hpp"
#include "protocol/control/reply_for_error.hpp"
#include "protocol/core/errors.hpp"
#include "security/tls_contexts.hpp"
#include "server/config/config_diff.hpp"
#include "server/session/control_session.hpp"
#include "transport/error_conversion.hpp"
#include "transport/tcp_stream.hpp"
#include "transport/udpx/engine_threads.hpp"

namespace gridftp::server {

namespace asio = transport::asio;
using transport::tcp;
using transport::use_awaitable;

namespace {

// Delegation keys kept ready: enough for a burst of logins; the pool refills in the background.
constexpr std::size_t kReadyDelegationKeys = 2;

security::DelegationKeyType delegation_key_type(const GsiConfig& gsi) {
  return gsi.delegation_key == "rsa" ? security::DelegationKeyType::Rsa
                                     : security::DelegationKeyType::EcP256;
}

unsigned io_threads(const ServerConfig& config) {
  return config.server.threads != 0 ? config.server.threads
                                    : std::max(1U, std::thread::hardware_concurrency());
}

}  // namespace

Server::Server(ServerConfig config, std::vector<auth::Account> accounts,
               std::shared_ptr<const auth::GsiContext> gsi, security::SslCtxPtr ftps,
               Loggers loggers)
    : config_(std::move(config)),
      loggers_(std::move(loggers)),
      data_loops_(io_threads(config_)),
      registry_(config_.limits),
      authenticator_(config_.anonymous, std::move(accounts)),
      gsi_(std::move(gsi)),
      ftps_(std::move(ftps)),
      transfer_log_(loggers_.transfer, loggers_.transfer_format, loggers_.host),
      services_{config_,     registry_,     authenticator_,   gsi_.get(),
                ftps_,       transfer_log_, loggers_.control, blocking_pool_,
                data_loops_, nullptr,       nullptr,          nullptr},
      acceptor_(io_context_) {
  // A frontend reaches its movers with the host credential (docs/STRIPING.md). Made here, while
  // the key is readable: a session process runs as its user once logged in.
  if (gsi_ && !config_.striping.movers.empty()) {
    auto context = security::make_gsi_control_context(gsi_->host, gsi_->trust.get(),
                                                      security::TlsRole::Client);
    if (context) {
      services_.striping_client = std::move(*context);
    } else {
      loggers_.control->error("[striping] movers: no TLS context for them: {}",
                              context.error().message());
    }
  }
}

Server::~Server() {
  blocking_pool_.join();
  // A UDPX engine thread (stopped with its session) ends by posting its result to one of our
  // io_contexts: joined here, while those still exist.
  transport::udpx::join_engine_threads();
  // Work left on the data loops (a transfer cut short by shutdown) may hold sessions whose
  // control sockets belong to io_context_: destroy it now, while io_context_ still exists.
  data_loops_.stop();
  data_loops_.destroy_pending();
  // Sessions still queued on the control loop end here, while services_ (metrics, registry)
  // that their destructors report to still exist; members are destroyed only after this body.
  io_context_.shutdown();
}

Result<tcp::endpoint> Server::bind() {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(config_.listen.control_interface, ec);
  if (ec) return make_error(std::make_error_code(std::errc::invalid_argument));
  const tcp::endpoint endpoint(address, config_.listen.port);
  auto fail = [](const boost::system::error_code& error) {
    return make_error(transport::to_error_code(error));
  };
  acceptor_.open(endpoint.protocol(), ec);
  if (ec == asio::error::address_family_not_supported && address.is_v6() &&
      address.to_v6().is_unspecified()) {
    // "::" (every interface, Globus's default) on a host without IPv6: every IPv4 interface.
    return bind_every_ipv4_interface();
  }
  if (ec) return fail(ec);
  acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (address.is_v6() && address.to_v6().is_unspecified()) {
    acceptor_.set_option(asio::ip::v6_only(false), ec);  // "::" serves IPv4 clients too
  }
  acceptor_.bind(endpoint, ec);
  if (ec) return fail(ec);
  acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail(ec);
  const auto bound = acceptor_.local_endpoint(ec);
  if (ec) return fail(ec);
  accepting_ = true;
  return bound;
}

Result<tcp::endpoint> Server::bind_every_ipv4_interface() {
  boost::system::error_code ec;
  const tcp::endpoint endpoint(asio::ip::address_v4::any(), config_.listen.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  const auto bound = ec ? tcp::endpoint() : acceptor_.local_endpoint(ec);
  if (ec) return make_error(transport::to_error_code(ec));
  accepting_ = true;
  return bound;
}

Result<std::optional<tcp::endpoint>> Server::open_metrics() {
  if (!services_.metrics) {
    auto page = MetricsPage::create();
    if (!page) return make_error(page.error());
    services_.metrics = std::move(*page);
  }
  if (!config_.metrics.enabled) return std::optional<tcp::endpoint>{};
  auto endpoint = MetricsEndpoint::open(io_context_, config_.metrics.address, config_.metrics.port,
                                        services_.metrics, [this] { return accepting_.load(); });
  if (!endpoint) return make_error(endpoint.error());
  metrics_endpoint_ = std::move(*endpoint);
  metrics_endpoint_->start();
  return std::optional<tcp::endpoint>(metrics_endpoint_->local_endpoint());
}

void Server::run() {
  // A session process (serve_inherited) has no listener of its own, and maps its parent's pool.
  if (config_.udpx.aggregate_rate_bps > 0 && !services_.udpx_pool) {
    auto pool = UdpxRatePool::create(config_.udpx.aggregate_rate_bps);
    if (pool) {
      services_.udpx_pool = std::move(*pool);
    } else {
      loggers_.control->error("[udpx] aggregate_rate_bps is not enforced: {}",
                              pool.error().message());
    }
  }
  if (gsi_ && !delegation_keys_) {
    delegation_keys_ = std::make_unique<security::KeyPool>(delegation_key_type(config_.gsi),
                                                           security::kDefaultDelegationKeyBits,
                                                           kReadyDelegationKeys);
    services_.delegation_keys = delegation_keys_.get();
  }
  if (acceptor_.is_open()) asio::co_spawn(io_context_, accept_loop(), asio::detached);
  if (spawn_arguments_) {
    asio::co_spawn(io_context_, reap_session_processes(), asio::detached);
    const std::lock_guard lock(sessions_mutex_);
    if (fork_server_)
      asio::co_spawn(io_context_, read_fork_server_reports(fork_server_), asio::detached);
  }
  // A session process has one control connection; its parallel work is on the data loops.
  const unsigned threads = serves_one_session_ ? 1 : io_threads(config_);
  loggers_.control->info("serving with threads={} data_loops={}", threads, data_loops_.size());
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([this] { io_context_.run(); });
  io_context_.run();
  for (auto& thread : pool) thread.join();
}

void Server::stop() {
  if (stopping_.exchange(true)) return;
  accepting_ = false;
  asio::post(io_context_, [this] {
    loggers_.control->info("shutting down: no new sessions, grace={}s",
                           config_.timeouts.shutdown_grace_seconds);
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    shut_down_sessions();
    {
      // The fork server ends once it has answered what it was asked (read_fork_server_reports).
      const std::lock_guard lock(sessions_mutex_);
      if (fork_server_) fork_server_->retire();
    }
    asio::co_spawn(io_context_, finish_shutdown(), asio::detached);
  });
}

void Server::apply_reload(Reload reload) {
  authenticator_.replace_accounts(std::move(reload.accounts));
  if (gsi_ && reload.gridmap) {
    gsi_->gridmap.store(std::make_shared<const security::Gridmap>(std::move(*reload.gridmap)));
  }
  loggers_.control->set_level(spdlog::level::from_str(reload.config.logging.level));
  std::vector<std::string> restart_needed;
  for (auto& key : changed_keys(config_, reload.config)) {
    if (key != "accounts.password_file" && key != "gsi.gridmap" && key != "logging.level")
      restart_needed.push_back(std::move(key));
  }
  loggers_.control->info("SIGHUP: config reloaded: accounts ({}), {}log level {}",
                         authenticator_.account_count(), gsi_ ? "gridmap, " : "",
                         reload.config.logging.level);
  if (!restart_needed.empty()) {
    loggers_.control->warn("SIGHUP: changed settings that take effect only after a restart{}: {}",
                           spawn_arguments_ ? " (new session processes read them already)" : "",
                           fmt::join(restart_needed, ", "));
  }
  // A new fork server reads the config afresh, as an exec'd session process would (and
  // replaces one that died).
  if (forks_sessions_ && !stopping_) {
    if (auto link = start_fork_server())
      asio::co_spawn(io_context_, read_fork_server_reports(std::move(link)), asio::detached);
  }
}

transport::awaitable<void> Server::finish_shutdown() {
  // Sessions were told to close; stop as soon as they have, or when the grace period ends.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::seconds(config_.timeouts.shutdown_grace_seconds);
  asio::steady_timer timer(io_context_);
  // Session processes are not waited for: they end their own sessions.
  const auto sessions_here = [this] {
    const std::lock_guard lock(sessions_mutex_);
    return registry_.active_sessions() -
           static_cast<unsigned>(session_processes_.size() + pending_spawns_.size());
  };
  while (sessions_here() > 0 && std::chrono::steady_clock::now() < deadline) {
    timer.expires_after(std::chrono::milliseconds(50));
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
  }
  // Open until here, so that /readyz says 503 while sessions drain and a last scrape sees them.
  if (metrics_endpoint_) metrics_endpoint_->stop();
  io_context_.stop();
}

void Server::shut_down_sessions() {
  const std::lock_guard lock(sessions_mutex_);
  for (auto& weak : sessions_) {
    if (auto session = weak.lock()) session->request_close();
  }
}

transport::awaitable<void> Server::accept_loop() {
  while (!stopping_) {
    tcp::socket socket(asio::make_strand(io_context_));
    boost::system::error_code ec;
    co_await acceptor_.async_accept(socket, asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (stopping_ || ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor)
        co_return;
      loggers_.control->warn("accept failed: {}", ec.message());
      // Out of descriptors or memory: pause rather than spin on an error that will repeat.
      asio::steady_timer pause(io_context_, std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    if (spawn_arguments_) {
      // A session process counts only itself, so the parent admits: max_sessions and
      // max_sessions_per_address hold over all session processes.
      const auto address = transport::peer_address_text(socket);
      if (const auto refusal = registry_.try_enter(address);
          refusal != SessionRegistry::Admission::Admitted) {
        refuse_connection(socket, address, refusal);
        continue;
      }
      hand_to_session_process(socket, address);
      continue;
    }
    // Replies are small writes in quick succession (125 then 226): without NODELAY, Nagle
    // holds the second until the peer's delayed ACK, ~40 ms per pipelined transfer.
    socket.set_option(tcp::no_delay(true), ec);
    const auto executor = socket.get_executor();
    auto session = make_session(std::move(socket), next_session_id_++);
    {
      const std::lock_guard lock(sessions_mutex_);
      sessions_.remove_if([](const auto& weak) { return weak.expired(); });
      sessions_.push_back(session);
    }
    asio::co_spawn(executor, serve(std::move(session)), asio::detached);
  }
}

void Server::refuse_connection(tcp::socket& socket, const std::string& address,
                               SessionRegistry::Admission refusal) {
  loggers_.control->warn("refused peer={}: {} reached", address,
                         SessionRegistry::limit_name(refusal));
  // One short line into an empty socket buffer; a peer that never reads cannot block us.
  const auto reply = protocol::control::format_reply(protocol::control::reply_for_error(
      error_code_for(Condition::TooManySessions), SessionRegistry::refusal_text(refusal)));
  boost::system::error_code ec;
  socket.non_blocking(true, ec);
  socket.write_some(asio::buffer(reply), ec);
}

void Server::serve_inherited(int fd, std::optional<int> key_fd, InheritedPages pages) {
  serves_one_session_ = true;
  if (pages.metrics) {
    auto metrics = MetricsPage::attach(*pages.metrics);
    if (metrics) {
      services_.metrics = std::move(*metrics);
    } else {
      loggers_.control->error("session process: no metrics page from the parent: {}",
                              metrics.error().message());
    }
  }
  if (pages.udpx_pool) {
    auto pool = UdpxRatePool::attach(*pages.udpx_pool, config_.udpx.aggregate_rate_bps);
    if (pool) {
      services_.udpx_pool = std::move(*pool);
    } else {
      loggers_.control->error("session process: no UDPX rate pool from the parent: {}",
                              pool.error().message());
    }
  }
  if (gsi_) {
    delegation_keys_ = std::make_unique<security::KeyPool>(delegation_key_type(config_.gsi),
                                                           security::kDefaultDelegationKeyBits, 0);
    services_.delegation_keys = delegation_keys_.get();
  }
  if (key_fd) {
    auto pem = read_handed_key(*key_fd);
    auto key = pem ? security::parse_private_key_pem(*pem) : make_error(pem.error());
    if (pem) security::wipe_secret(*pem);
    if (key && delegation_keys_) {
      delegation_keys_->put(std::move(*key));
    } else if (!key) {
      loggers_.control->warn("session process: no usable delegation key from the parent: {}",
                             key.error().message());
    }
  }
  asio::co_spawn(
      io_context_,
      [this, fd]() -> transport::awaitable<void> {
        tcp::socket socket(asio::make_strand(io_context_));
        sockaddr_storage local{};
        socklen_t length = sizeof local;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length);
        boost::system::error_code ec;
        socket.assign(local.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), fd, ec);
        if (ec) {
          loggers_.control->error("session process cannot use descriptor {}: {}", fd, ec.message());
        } else {
          socket.set_option(tcp::no_delay(true), ec);
          auto session = make_session(std::move(socket), static_cast<std::uint64_t>(::getpid()));
          {
            const std::lock_guard lock(sessions_mutex_);
            sessions_.push_back(session);
          }
          co_await serve(std::move(session));
        }
        io_context_.stop();
      },
      asio::detached);
}

std::shared_ptr<ControlSession> Server::make_session(tcp::socket socket, std::uint64_t id) {
  auto endpoints = ControlEndpoints::of(socket);
  return std::make_shared<ControlSession>(std::make_unique<transport::TcpStream>(std::move(socket)),
                                          std::move(endpoints), services_, id);
}

transport::awaitable<void> Server::serve(std::shared_ptr<ControlSession> session) {
  try {
    co_await session->run();
  } catch (const std::exception& error) {
    // One session's bug must not take the server down; log it and drop that session only.
    loggers_.control->error("session ended by exception: {}", error.what());
  }
}

}  // namespace gridftp::server
