// Process-per-session mode: a root-run gridftpd with GSI gives each control connection its own
// process (exec'd afresh, so no threads or locks are inherited), which becomes the mapped account
// after login. Files are then created with the user's uid/gid and the kernel checks every access
// as that user, exactly as with the Globus server. The parent keeps only the listener.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "protocol/core/result.hpp"

namespace gridftp::server {

// Shared pages (server/process/shared_page) a session process maps from its parent.
struct InheritedPages {
  std::optional<int> udpx_pool;  // the UDPX rate pool ([udpx] aggregate_rate_bps)
  std::optional<int> metrics;    // the metrics counters
};

// The command line a session process runs: our own executable, the parent's arguments, and
// "--session-fd N" (and "--delegation-key-fd K" when the parent hands over a key on K).
// `arguments` are argv[1..] of the parent.
std::vector<std::string> session_process_command(const std::vector<std::string>& arguments, int fd,
                                                 std::optional<int> key_fd = std::nullopt,
                                                 InheritedPages pages = {});

// A descriptor a spawned process gets: `from` (ours) as its `to`.
struct HandedDescriptor {
  int from;
  int to;
};

// Starts our own executable (/proc/self/exe: the same binary even if the file was replaced
// since) with `command` as its argv, holding stdio and `handed` and nothing else: not the
// listener, and not the sockets of sessions accepted meanwhile on other threads (a copy held by
// the wrong process keeps a connection open after its own session has closed it). Returns the
// child's pid. Errors: the error posix_spawn reports.
Result<pid_t> spawn_self(const std::vector<std::string>& command,
                         const std::vector<HandedDescriptor>& handed);

// Starts a session process that owns `socket_fd` (it gets it as descriptor 3). A non-empty
// `key_pem` (a private key made ahead, see security/key_pool.hpp) reaches it through a pipe on
// descriptor 4, and the shared `pages` on the next descriptors, in InheritedPages' order.
// Returns the child's pid. Errors: errno from pipe2 or posix_spawn.
Result<pid_t> spawn_session_process(const std::vector<std::string>& arguments, int socket_fd,
                                    const std::string& key_pem = {}, InheritedPages pages = {});

// The read end of a new pipe already holding `bytes` (at most a pipe's capacity, so nothing
// blocks), its write end closed; close-on-exec. -1 with errno on failure.
int pipe_holding(const std::string& bytes);

// In a session process: everything the parent wrote on `fd` (the handed-over key), then closes it.
// Errors: errno from read.
Result<std::string> read_handed_key(int fd);

// Becomes `account` for good: supplementary groups, then real, effective and saved gid and uid
// (glibc applies them to every thread of the process), and checks that root cannot be taken
// back. Errors: Condition::LoginFailed for an unknown account or root; errno otherwise.
Result<void> become_account(const std::string& account);

// First thing in a session process, before it starts any thread: names it "gridftpd", sets
// no_new_privs and, as root, empties the capability bounding set. Errors: errno from prctl.
Result<void> restrict_session_process();

}  // namespace gridftp::server
