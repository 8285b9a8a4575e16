// CKSM <algorithm> <offset> <length> <path> (GFD.47; length -1 = to EOF). A whole-file request is
// answered from the value stored with the file when it is still valid (computed while the file
// was uploaded, or by an earlier CKSM); anything else is computed on the blocking pool, because
// hashing a large file would hold an I/O thread for seconds, and a whole-file result is stored
// so that the next CKSM is instant (docs/ARCHITECTURE.md, "Checksums on the fly").
// Downloads do not compute checksums: a whole-file RETR goes through sendfile and never sees
// its bytes, and reading the file again after each send would spend the CPU that the sends need.
#pragma once

#include <memory>
#include <string>

#include "server/session/namespace_commands.hpp"
#include "server/session/session_replies.hpp"
#include "server/session/user_login.hpp"
#include "transport/asio.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

// It reaches the namespace (the login check and path resolution), the user's storage, the
// blocking pool and the replies.
class ChecksumCommands {
 public:
  ChecksumCommands(NamespaceCommands& names, UserLogin& login,
                   transport::asio::thread_pool& blocking_pool, SessionReplies& replies,
                   std::shared_ptr<spdlog::logger> log, std::string tag);
  ChecksumCommands(const ChecksumCommands&) = delete;
  ChecksumCommands& operator=(const ChecksumCommands&) = delete;

  transport::awaitable<void> on_cksm(const std::string& argument);

 private:
  NamespaceCommands& names_;
  UserLogin& login_;
  transport::asio::thread_pool& blocking_pool_;
  SessionReplies& replies_;
  std::shared_ptr<spdlog::logger> log_;
  const std::string tag_;
};

}  // namespace gridftp::server
