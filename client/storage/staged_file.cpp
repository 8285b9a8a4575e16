#include "client/storage/staged_file.hpp"

#include <cerrno>
#include <cstdio>
#include <optional>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gridftp::client {
namespace {

Unexpected errno_error() { return make_error(std::error_code(errno, std::generic_category())); }

}  // namespace

std::string StagedFile::temporary_path_for(const std::string& path) {
  return path + ".gridcp-part";
}

std::optional<Result<StagedFile>> StagedFile::open_special(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode) || S_ISDIR(info.st_mode)) {
    return std::nullopt;
  }
  // A device or FIFO (/dev/null above all) is written where it is: a temporary file renamed
  // over it would replace the device with a regular file (as root, /dev/null for the machine).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return errno_error();
  }
  return StagedFile(fd, path, std::string());
}

Result<StagedFile> StagedFile::create(const std::string& path) {
  if (auto special = open_special(path)) {
    return std::move(*special);
  }
  std::string temporary = temporary_path_for(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    return errno_error();
  }
  return StagedFile(fd, path, std::move(temporary));
}

Result<StagedFile> StagedFile::reopen(const std::string& path) {
  if (auto special = open_special(path)) {
    return std::move(*special);
  }
  std::string temporary = temporary_path_for(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    return errno_error();
  }
  return StagedFile(fd, path, std::move(temporary));
}

Result<std::uint64_t> StagedFile::size_bytes() const {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    return errno_error();
  }
  return static_cast<std::uint64_t>(info.st_size);
}

Result<void> StagedFile::truncate(std::uint64_t size) const {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    return errno_error();
  }
  return {};
}

StagedFile::StagedFile(int fd, std::string path, std::string temporary_path)
    : fd_(fd), path_(std::move(path)), temporary_path_(std::move(temporary_path)) {}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      temporary_path_(std::move(other.temporary_path_)),
      committed_(std::exchange(other.committed_, true)),
      keep_(other.keep_) {}

StagedFile::~StagedFile() { discard(); }

void StagedFile::discard() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!committed_ && !keep_ && !temporary_path_.empty()) {
    ::unlink(temporary_path_.c_str());
  }
}

Result<void> StagedFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno_error();
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return {};
}

Result<void> StagedFile::write_at(std::uint64_t offset, std::string_view bytes) const {
  while (!bytes.empty()) {
    const auto written = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno_error();
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
    offset += static_cast<std::uint64_t>(written);
  }
  return {};
}

Result<void> StagedFile::commit() {
  // close() reports delayed write errors (NFS, quota), so it must succeed before the rename.
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) {
    return errno_error();
  }
  if (!temporary_path_.empty() && std::rename(temporary_path_.c_str(), path_.c_str()) != 0) {
    return errno_error();
  }
  committed_ = true;
  return {};
}

}  // namespace gridftp::client
