#include "server/process/background.hpp"

#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace gridftp::server {

Result<Background> Background::enter() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return make_error(std::error_code(errno, std::generic_category()));
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return make_error(std::error_code(error, std::generic_category()));
  }
  if (child > 0) {
    ::close(fds[1]);
    char byte = 0;
    ssize_t got = 0;
    do {
      got = ::read(fds[0], &byte, 1);
    } while (got < 0 && errno == EINTR);
    // A byte: listening. End of file: the child ended (its reason is on stderr) before that.
    ::_exit(got == 1 ? 0 : 1);
  }
  ::close(fds[0]);
  ::setsid();
  return Background(fds[1]);
}

Background::Background(Background&& other) noexcept : ready_fd_(other.ready_fd_) {
  other.ready_fd_ = -1;
}

Background::~Background() {
  if (ready_fd_ >= 0) ::close(ready_fd_);
}

void Background::ready() {
  if (ready_fd_ < 0) return;
  const char byte = 1;
  ssize_t wrote = 0;
  do {
    wrote = ::write(ready_fd_, &byte, 1);
  } while (wrote < 0 && errno == EINTR);
  ::close(ready_fd_);
  ready_fd_ = -1;
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  if (null > 2) ::close(null);
}

}  // namespace gridftp::server
