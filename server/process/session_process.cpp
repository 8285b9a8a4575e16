#include "server/process/session_process.hpp"

#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "protocol/core/errors.hpp"

extern char** environ;

namespace gridftp::server {

std::vector<std::string> session_process_command(const std::vector<std::string>& arguments, int fd,
                                                 std::optional<int> key_fd, InheritedPages pages) {
  std::vector<std::string> command{"/proc/self/exe"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.emplace_back("--session-fd");
  command.push_back(std::to_string(fd));
  if (key_fd) {
    command.emplace_back("--delegation-key-fd");
    command.push_back(std::to_string(*key_fd));
  }
  if (pages.udpx_pool) {
    command.emplace_back("--udpx-pool-fd");
    command.push_back(std::to_string(*pages.udpx_pool));
  }
  if (pages.metrics) {
    command.emplace_back("--metrics-fd");
    command.push_back(std::to_string(*pages.metrics));
  }
  return command;
}

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

Result<pid_t> spawn_self(const std::vector<std::string>& command,
                         const std::vector<HandedDescriptor>& handed) {
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  int highest = 2;
  posix_spawn_file_actions_t actions;
  pid_t child = 0;
  int rc = ::posix_spawn_file_actions_init(&actions);
  if (rc != 0) return make_error(std::error_code(rc, std::generic_category()));
  for (const auto& descriptor : handed) {
    // dup2 clears close-on-exec on the copy.
    if (rc == 0) rc = ::posix_spawn_file_actions_adddup2(&actions, descriptor.from, descriptor.to);
    highest = std::max(highest, descriptor.to);
  }
  if (rc == 0) rc = ::posix_spawn_file_actions_addclosefrom_np(&actions, highest + 1);
  if (rc == 0)
    rc = ::posix_spawn(&child, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return make_error(std::error_code(rc, std::generic_category()));
  return child;
}

Result<pid_t> spawn_session_process(const std::vector<std::string>& arguments, int socket_fd,
                                    const std::string& key_pem, InheritedPages pages) {
  // The session socket becomes descriptor 3, the key pipe 4, the pages the next ones in order.
  constexpr int kSessionFd = 3;
  constexpr int kKeyFd = 4;
  const int key_pipe = key_pem.empty() ? -1 : pipe_holding(key_pem);
  if (!key_pem.empty() && key_pipe < 0)
    return make_error(std::error_code(errno, std::generic_category()));
  std::vector<HandedDescriptor> handed{{socket_fd, kSessionFd}};
  if (key_pipe >= 0) handed.push_back({key_pipe, kKeyFd});
  InheritedPages targets;
  if (pages.udpx_pool) {
    targets.udpx_pool = handed.back().to + 1;
    handed.push_back({*pages.udpx_pool, *targets.udpx_pool});
  }
  if (pages.metrics) {
    targets.metrics = handed.back().to + 1;
    handed.push_back({*pages.metrics, *targets.metrics});
  }
  const auto spawned = spawn_self(
      session_process_command(arguments, kSessionFd,
                              key_pipe >= 0 ? std::optional<int>(kKeyFd) : std::nullopt, targets),
      handed);
  if (key_pipe >= 0) ::close(key_pipe);
  return spawned;
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
  // Real, effective and saved ids all change, so nothing is left to switch back to; with no
  // root id left the kernel clears the permitted and effective capabilities.
  if (::initgroups(found->pw_name, found->pw_gid) != 0 ||
      ::setresgid(found->pw_gid, found->pw_gid, found->pw_gid) != 0 ||
      ::setresuid(found->pw_uid, found->pw_uid, found->pw_uid) != 0) {
    return make_error(std::error_code(errno, std::generic_category()));
  }
  if (::setuid(0) == 0) return make_error(std::make_error_code(std::errc::operation_not_permitted));
  return {};
}

Result<void> restrict_session_process() {
  // Named as the server in ps and /proc/PID/comm, not "exe" (started through /proc/self/exe)
  // nor the fork server's name.
  ::prctl(PR_SET_NAME, "gridftpd", 0, 0, 0);
  // Nothing this process might exec could gain privileges (set-user-ID files, file
  // capabilities); inherited by every thread made after this call.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return make_error(std::error_code(errno, std::generic_category()));
  if (::geteuid() != 0) return {};
  // An empty bounding set: no capability can come back through exec even as root.
  for (unsigned long capability = 0;; ++capability) {
    if (::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) == 0) continue;
    if (errno == EINVAL) return {};  // past the last capability this kernel knows
    return make_error(std::error_code(errno, std::generic_category()));
  }
}

}  // namespace gridftp::server
