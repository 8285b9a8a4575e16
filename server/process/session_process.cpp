#include "server/process/session_process.hpp"

#include <cerrno>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <unistd.h>

#include "protocol/core/errors.hpp"

extern char** environ;

namespace gridftp::server {

std::vector<std::string> session_process_command(const std::vector<std::string>& arguments, int fd,
                                                 std::optional<int> key_fd,
                                                 std::optional<int> pool_fd) {
  std::vector<std::string> command{"/proc/self/exe"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.emplace_back("--session-fd");
  command.push_back(std::to_string(fd));
  if (key_fd) {
    command.emplace_back("--delegation-key-fd");
    command.push_back(std::to_string(*key_fd));
  }
  if (pool_fd) {
    command.emplace_back("--udpx-pool-fd");
    command.push_back(std::to_string(*pool_fd));
  }
  return command;
}

namespace {

// A pipe already holding `bytes` (a key PEM is far below the pipe's capacity, so the write
// never blocks), its write end closed: the read end is returned. -1 with errno on failure.
int pipe_holding(const std::string& bytes) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return -1;
  const bool written =
      ::write(ends[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  const int saved = errno;
  ::close(ends[1]);
  if (!written) {
    ::close(ends[0]);
    errno = saved != 0 ? saved : EPIPE;
    return -1;
  }
  return ends[0];
}

}  // namespace

Result<void> spawn_session_process(const std::vector<std::string>& arguments, int socket_fd,
                                   const std::string& key_pem, std::optional<int> pool_fd) {
  // The child gets the session socket as descriptor 3 (and the key pipe as 4) and nothing else
  // beyond stdio: not the listener, and not the sockets of sessions accepted meanwhile on other
  // threads (a copy held by the wrong process keeps a connection open after its own session has
  // closed it).
  constexpr int kSessionFd = 3;
  constexpr int kKeyFd = 4;
  const int pool_target = key_pem.empty() ? kKeyFd : kKeyFd + 1;  // the next free descriptor
  const int key_pipe = key_pem.empty() ? -1 : pipe_holding(key_pem);
  if (!key_pem.empty() && key_pipe < 0)
    return make_error(std::error_code(errno, std::generic_category()));
  const auto command = session_process_command(
      arguments, kSessionFd, key_pipe >= 0 ? std::optional<int>(kKeyFd) : std::nullopt,
      pool_fd ? std::optional<int>(pool_target) : std::nullopt);
  std::vector<char*> argv;
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  int rc = ::posix_spawn_file_actions_init(&actions);
  if (rc == 0) {
    rc =
        ::posix_spawn_file_actions_adddup2(&actions, socket_fd, kSessionFd);  // dup2 clears CLOEXEC
    if (rc == 0 && key_pipe >= 0)
      rc = ::posix_spawn_file_actions_adddup2(&actions, key_pipe, kKeyFd);
    if (rc == 0 && pool_fd)
      rc = ::posix_spawn_file_actions_adddup2(&actions, *pool_fd, pool_target);
    if (rc == 0) {
      const int highest = pool_fd ? pool_target : key_pipe >= 0 ? kKeyFd : kSessionFd;
      rc = ::posix_spawn_file_actions_addclosefrom_np(&actions, highest + 1);
    }
    pid_t child = 0;
    if (rc == 0)
      rc = ::posix_spawn(&child, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
  }
  if (key_pipe >= 0) ::close(key_pipe);
  if (rc != 0) return make_error(std::error_code(rc, std::generic_category()));
  return {};
}

Result<std::string> read_handed_key(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int saved = errno;
      ::close(fd);
      return make_error(std::error_code(saved, std::generic_category()));
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

Result<void> become_account(const std::string& account) {
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwnam_r(account.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return make_error(error_code_for(Condition::LoginFailed));
  }
  if (found->pw_uid == 0)
    return make_error(error_code_for(Condition::LoginFailed));  // never serve as root
  if (::initgroups(found->pw_name, found->pw_gid) != 0 || ::setgid(found->pw_gid) != 0 ||
      ::setuid(found->pw_uid) != 0) {
    return make_error(std::error_code(errno, std::generic_category()));
  }
  return {};
}

}  // namespace gridftp::server
