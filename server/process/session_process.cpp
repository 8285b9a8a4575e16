#include "server/process/session_process.hpp"

#include <grp.h>
#include <pwd.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>

#include "protocol/core/errors.hpp"

extern char** environ;

namespace gridftp::server {

std::vector<std::string> session_process_command(const std::vector<std::string>& arguments, int fd) {
  std::vector<std::string> command{"/proc/self/exe"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.emplace_back("--session-fd");
  command.push_back(std::to_string(fd));
  return command;
}

Result<void> spawn_session_process(const std::vector<std::string>& arguments, int socket_fd) {
  // The child gets the session socket as descriptor 3 and nothing else beyond stdio: not the
  // listener, and not the sockets of sessions accepted meanwhile on other threads (a copy held
  // by the wrong process keeps a connection open after its own session has closed it).
  constexpr int kSessionFd = 3;
  const auto command = session_process_command(arguments, kSessionFd);
  std::vector<char*> argv;
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  if (const int rc = ::posix_spawn_file_actions_init(&actions); rc != 0) {
    return make_error(std::error_code(rc, std::generic_category()));
  }
  int rc = ::posix_spawn_file_actions_adddup2(&actions, socket_fd, kSessionFd);  // dup2 clears CLOEXEC
  if (rc == 0) rc = ::posix_spawn_file_actions_addclosefrom_np(&actions, kSessionFd + 1);
  pid_t child = 0;
  if (rc == 0) rc = ::posix_spawn(&child, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return make_error(std::error_code(rc, std::generic_category()));
  return {};
}

Result<void> become_account(const std::string& account) {
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwnam_r(account.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return make_error(error_code_for(Condition::LoginFailed));
  }
  if (found->pw_uid == 0) return make_error(error_code_for(Condition::LoginFailed));  // never serve as root
  if (::initgroups(found->pw_name, found->pw_gid) != 0 || ::setgid(found->pw_gid) != 0 ||
      ::setuid(found->pw_uid) != 0) {
    return make_error(std::error_code(errno, std::generic_category()));
  }
  return {};
}

}  // namespace gridftp::server
