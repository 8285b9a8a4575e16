// Process-per-session mode: a root-run gridftpd with GSI gives each control connection its own
// process (exec'd afresh, so no threads or locks are inherited), which becomes the mapped account
// after login. Files are then created with the user's uid/gid and the kernel checks every access
// as that user, exactly as with the Globus server. The parent keeps only the listener.
#pragma once

#include <string>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::server {

// The command line a session process runs: our own executable, the parent's arguments, and
// "--session-fd N". `arguments` are argv[1..] of the parent.
std::vector<std::string> session_process_command(const std::vector<std::string>& arguments, int fd);

// Starts a session process that owns `socket_fd` (passed as the same descriptor number).
// Errors: errno from posix_spawn.
Result<void> spawn_session_process(const std::vector<std::string>& arguments, int socket_fd);

// Becomes `account` for good: supplementary groups, gid, then uid (glibc applies setuid to every
// thread of the process). Errors: Condition::LoginFailed for an unknown account; errno otherwise.
Result<void> become_account(const std::string& account);

}  // namespace gridftp::server
