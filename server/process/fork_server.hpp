// The fork server of process-per-session mode: one process, exec'd once from the listener with
// the listener's arguments, that has read the config, the credentials and the CA store and
// then forks a session process for each connection the listener hands it. Every session
// process shares the fork server's pages copy-on-write (the libraries' relocated data, the
// loaded config and trust store), where a process exec'd per connection relocates and loads all
// of it privately: about half of an idle session process's memory (bench/session_memory.py).
//
// The fork server is single-threaded, so a fork copies no lock held by another thread; the
// listener, which runs threads, never forks. What sessions of one fork server share is their
// address-space layout; `gsi.fork_server = false` gives every session its own layout instead.
//
// Over a SOCK_SEQPACKET pair the listener sends one request per connection (the connection,
// the delegation key pipe and the shared pages, as SCM_RIGHTS) and the fork server answers with
// the session's pid, then reports each session's end with its wait status, in order on the one
// socket, so an end is never reported before its start. The listener is a child subreaper: a
// session outliving its fork server (retired after a SIGHUP, or dead) becomes the listener's
// child and is reaped there as an exec'd one is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "protocol/core/result.hpp"
#include "server/process/session_process.hpp"

namespace gridftp::server {

// What the listener hands over for one connection (descriptors of the sending process).
struct SessionHandOff {
  int session_fd = -1;
  std::optional<int> key_fd;  // a pipe holding the delegation key made ahead
  InheritedPages pages;
};

// What the fork server tells the listener.
struct ForkServerReport {
  enum class Kind : std::uint32_t { Spawned = 1, Failed = 2, Ended = 3 };
  Kind kind = Kind::Spawned;
  std::int32_t pid = 0;       // Spawned, Ended
  std::int32_t value = 0;     // Failed: errno; Ended: the wait status
  std::uint64_t request = 0;  // Spawned, Failed: the request's number
};

// The listener's end of a running fork server.
class ForkServerLink {
 public:
  // Starts `/proc/self/exe ARGUMENTS --fork-server-fd 3`. Errors: errno from socketpair or
  // posix_spawn.
  static Result<ForkServerLink> start(const std::vector<std::string>& arguments);

  ForkServerLink(ForkServerLink&& other) noexcept;
  ForkServerLink& operator=(ForkServerLink&&) = delete;
  ForkServerLink(const ForkServerLink&) = delete;
  ForkServerLink& operator=(const ForkServerLink&) = delete;
  ~ForkServerLink();

  pid_t pid() const { return pid_; }
  // The socket the reports arrive on (read with receive_report once it is readable).
  int fd() const { return fd_; }
  // Asks for a session process serving `hand_off` (copies of its descriptors travel; the
  // caller still closes its own). Errors: errno from sendmsg.
  Result<void> request(std::uint64_t number, const SessionHandOff& hand_off);
  // The next report without waiting: nullopt when none is ready. Errors: ECONNRESET once the
  // fork server has gone (end of file), or errno from recv.
  Result<std::optional<ForkServerReport>> receive_report();
  // No more requests: the fork server answers what it has, then exits.
  void retire();

 private:
  ForkServerLink(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_;
  int fd_;
};

// In the fork server (`--fork-server-fd`): serves requests on `fd` until the listener retires
// it or goes away, and returns nullopt there. In each forked session process it returns what
// that session serves (descriptors of this process), with the session's signal mask restored
// and the fork server's own descriptors closed.
std::optional<SessionHandOff> serve_fork_requests(int fd);

}  // namespace gridftp::server
