// Process-per-session mode: a root-run gridftpd with GSI gives each control connection its own
// process (exec'd afresh, so no threads or locks are inherited), which becomes the mapped account
// after login. Files are then created with the user's uid/gid and the kernel checks every access
// as that user, exactly as with the Globus server. The parent keeps only the listener.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::server {

// The command line a session process runs: our own executable, the parent's arguments, and
// "--session-fd N" (and "--delegation-key-fd K" when the parent hands over a key on K).
// `arguments` are argv[1..] of the parent.
std::vector<std::string> session_process_command(const std::vector<std::string>& arguments, int fd,
                                                 std::optional<int> key_fd = std::nullopt,
                                                 std::optional<int> pool_fd = std::nullopt);

// Starts a session process that owns `socket_fd` (it gets it as descriptor 3). A non-empty
// `key_pem` (a private key made ahead, see security/key_pool.hpp) reaches it through a pipe on
// descriptor 4, and `pool_fd` (the UDPX rate pool's page, server/data/udpx_rate_pool.hpp) is
// shared on the next descriptor (4 or 5). Errors: errno from pipe2 or posix_spawn.
Result<void> spawn_session_process(const std::vector<std::string>& arguments, int socket_fd,
                                   const std::string& key_pem = {},
                                   std::optional<int> pool_fd = std::nullopt);

// In a session process: everything the parent wrote on `fd` (the handed-over key), then closes it.
// Errors: errno from read.
Result<std::string> read_handed_key(int fd);

// Becomes `account` for good: supplementary groups, gid, then uid (glibc applies setuid to every
// thread of the process). Errors: Condition::LoginFailed for an unknown account; errno otherwise.
Result<void> become_account(const std::string& account);

}  // namespace gridftp::server
