#include "client/storage/local_source.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gridftp::client {
namespace {

Unexpected errno_error() { return make_error(std::error_code(errno, std::generic_category())); }

}  // namespace

Result<LocalSource> LocalSource::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return errno_error();
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    const int error = S_ISDIR(info.st_mode) ? EISDIR : errno;
    ::close(fd);
    return make_error(std::error_code(error, std::generic_category()));
  }
  return LocalSource(fd, static_cast<std::uint64_t>(info.st_size), S_ISREG(info.st_mode));
}

LocalSource::LocalSource(LocalSource&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_bytes_(other.size_bytes_), regular_(other.regular_) {}

LocalSource::~LocalSource() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

Result<std::size_t> LocalSource::read(std::span<char> buffer) {
  for (;;) {
    const auto count = ::read(fd_, buffer.data(), buffer.size());
    if (count >= 0) {
      return static_cast<std::size_t>(count);
    }
    if (errno != EINTR) {
      return errno_error();
    }
  }
}

Result<void> LocalSource::read_at(std::uint64_t offset, std::span<char> buffer) const {
  while (!buffer.empty()) {
    const auto count = ::pread(fd_, buffer.data(), buffer.size(), static_cast<off_t>(offset));
    if (count < 0 && errno == EINTR) {
      continue;
    }
    if (count < 0) {
      return errno_error();
    }
    if (count == 0) {
      return make_error(std::error_code(EIO, std::generic_category()));
    }
    buffer = buffer.subspan(static_cast<std::size_t>(count));
    offset += static_cast<std::uint64_t>(count);
  }
  return {};
}

}  // namespace gridftp::client
