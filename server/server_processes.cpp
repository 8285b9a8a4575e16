// Process-per-session mode, the listener's side: handing accepted connections to session
// processes (through the fork server, server/process/fork_server.hpp, or exec'd), and learning
// when they end, so that their places in the registry come back and a crash is logged.
#include <cstring>

#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server/server.hpp"

namespace gridftp::server {

namespace asio = transport::asio;
using transport::use_awaitable;

void Server::spawn_sessions_with(std::vector<std::string> arguments) {
  spawn_arguments_ = std::move(arguments);
  if (!config_.gsi.fork_server) return;
  // Sessions outliving their fork server become our children rather than init's, so their end
  // is still seen (reap_session_processes).
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    loggers_.control->warn(
        "no fork server (cannot become a child subreaper: {}); session "
        "processes are exec'd",
        std::strerror(errno));
    return;
  }
  forks_sessions_ = true;
  start_fork_server();  // run() starts reading its reports
}

std::shared_ptr<ForkServerLink> Server::start_fork_server() {
  auto started = ForkServerLink::start(*spawn_arguments_);
  if (!started) {
    loggers_.control->error("cannot start the fork server: {}; session processes are exec'd",
                            started.error().message());
    return nullptr;
  }
  auto link = std::make_shared<ForkServerLink>(std::move(*started));
  loggers_.control->info("fork server {} started", link->pid());
  std::shared_ptr<ForkServerLink> retired;
  {
    const std::lock_guard lock(sessions_mutex_);
    retired = std::exchange(fork_server_, link);
  }
  // Connections already handed to the old one are still answered: it ends after them.
  if (retired) retired->retire();
  return link;
}

void Server::hand_to_session_process(transport::tcp::socket& socket, const std::string& address) {
  // The session process takes the connection; ours closes when `socket` goes out of scope.
  // The session process gets a ready delegation key, so its login does not wait for one.
  std::string key_pem;
  if (auto key = delegation_keys_ ? delegation_keys_->take() : security::EvpPkeyPtr{}) {
    if (auto pem = security::private_key_pem(key.get())) key_pem = std::move(*pem);
  }
  InheritedPages pages;
  if (services_.udpx_pool) pages.udpx_pool = services_.udpx_pool->fd();
  if (services_.metrics) pages.metrics = services_.metrics->fd();
  if (!hand_to_fork_server(socket, address, key_pem, pages)) {
    const auto spawned =
        spawn_session_process(*spawn_arguments_, socket.native_handle(), key_pem, pages);
    if (spawned) {
      const std::lock_guard lock(sessions_mutex_);
      session_processes_.emplace(*spawned, address);
    } else {
      loggers_.control->error("cannot start a session process: {}", spawned.error().message());
      registry_.leave(address);
    }
  }
  security::wipe_secret(key_pem);
}

bool Server::hand_to_fork_server(transport::tcp::socket& socket, const std::string& address,
                                 const std::string& key_pem, InheritedPages pages) {
  std::shared_ptr<ForkServerLink> link;
  std::uint64_t number = 0;
  {
    const std::lock_guard lock(sessions_mutex_);
    if (!fork_server_) return false;
    link = fork_server_;
    number = next_spawn_request_++;
    pending_spawns_.emplace(number, PendingSpawn{address, link->pid()});
  }
  SessionHandOff hand_off{socket.native_handle(), std::nullopt, pages};
  const int key_pipe = key_pem.empty() ? -1 : pipe_holding(key_pem);
  if (key_pipe >= 0) hand_off.key_fd = key_pipe;
  const auto sent = link->request(number, hand_off);
  if (key_pipe >= 0) ::close(key_pipe);
  if (sent) return true;
  loggers_.control->error("fork server {} unreachable ({}); this session process is exec'd",
                          link->pid(), sent.error().message());
  const std::lock_guard lock(sessions_mutex_);
  pending_spawns_.erase(number);
  return false;
}

transport::awaitable<void> Server::read_fork_server_reports(std::shared_ptr<ForkServerLink> link) {
  // A copy of the descriptor to wait on: the link keeps its own for sends and receives.
  asio::posix::stream_descriptor readable(io_context_, ::dup(link->fd()));
  for (;;) {
    boost::system::error_code ec;
    co_await readable.async_wait(asio::posix::stream_descriptor::wait_read,
                                 asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    // Every report ready; an error is the fork server's end.
    auto report = link->receive_report();
    for (; report && *report; report = link->receive_report())
      take_fork_server_report(*link, **report);
    if (!report) break;
  }
  forget_fork_server(*link);
}

void Server::take_fork_server_report(const ForkServerLink& link, const ForkServerReport& report) {
  using Kind = ForkServerReport::Kind;
  if (report.kind == Kind::Ended) {
    session_process_ended(report.pid, report.value);
    return;
  }
  const std::lock_guard lock(sessions_mutex_);
  const auto pending = pending_spawns_.find(report.request);
  if (pending == pending_spawns_.end() || pending->second.fork_server != link.pid()) return;
  if (report.kind == Kind::Spawned) {
    session_processes_.emplace(report.pid, std::move(pending->second.address));
  } else {
    loggers_.control->error("cannot start a session process: fork server {}: {}", link.pid(),
                            std::strerror(report.value));
    registry_.leave(pending->second.address);
  }
  pending_spawns_.erase(pending);
}

void Server::forget_fork_server(const ForkServerLink& link) {
  const std::lock_guard lock(sessions_mutex_);
  // Connections it never answered for are gone with it.
  for (auto it = pending_spawns_.begin(); it != pending_spawns_.end();) {
    if (it->second.fork_server != link.pid()) {
      ++it;
      continue;
    }
    registry_.leave(it->second.address);
    it = pending_spawns_.erase(it);
  }
  if (fork_server_.get() != &link) return;  // retired: its successor serves
  fork_server_.reset();
  if (!stopping_)
    loggers_.control->error("fork server {} has gone; session processes are exec'd from now on",
                            link.pid());
}

void Server::session_process_ended(pid_t pid, int status) {
  {
    const std::lock_guard lock(sessions_mutex_);
    if (const auto found = session_processes_.find(pid); found != session_processes_.end()) {
      registry_.leave(found->second);
      session_processes_.erase(found);
    }
  }
  if (WIFSIGNALED(status)) {
    loggers_.control->error("session process {} ended by signal {}", pid, WTERMSIG(status));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    loggers_.control->warn("session process {} exited with status {}", pid, WEXITSTATUS(status));
  }
}

transport::awaitable<void> Server::reap_session_processes() {
  // Reaping (rather than ignoring SIGCHLD) lets a crashed session process be logged, and adds
  // each session's CPU time to ours, where `ps`, `time` and benchmarks look for it (a fork
  // server's sessions reach us through the fork server's own end). Reaped here: exec'd session
  // processes, fork servers, and sessions whose fork server ended before them.
  asio::signal_set child_exits(io_context_, SIGCHLD);
  while (!stopping_) {
    boost::system::error_code ec;
    co_await child_exits.async_wait(asio::redirect_error(use_awaitable, ec));
    if (ec) co_return;
    int status = 0;
    for (pid_t pid = ::waitpid(-1, &status, WNOHANG); pid > 0;
         pid = ::waitpid(-1, &status, WNOHANG)) {
      session_process_ended(pid, status);
    }
  }
}

}  // namespace gridftp::server
