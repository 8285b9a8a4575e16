#include "security/local_file.hpp"

#include <array>
#include <cerrno>
#include <cstdint>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::error_code last_errno() { return {errno, std::system_category()}; }

}  // namespace

Result<std::string> read_local_file(const std::filesystem::path& path, FileAccess access,
                                    std::size_t max_bytes) {
  // O_NONBLOCK keeps a fifo planted in place of a key from blocking us before fstat rejects it.
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (file.get() < 0) {
    return make_error(last_errno());
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) {
    return make_error(last_errno());
  }
  if (!S_ISREG(info.st_mode)) {
    return make_error(Errc::NotARegularFile);
  }
  // A key others can read is a key others may have copied; Globus refuses such files too.
  if (access == FileAccess::OwnerOnly &&
      (info.st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)) != 0) {
    return make_error(Errc::FileTooPermissive);
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    return make_error(Errc::FileTooLarge);
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(info.st_size));
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t count = ::read(file.get(), buffer.data(), buffer.size());
    if (count < 0 && errno == EINTR) {
      continue;
    }
    if (count < 0) {
      return make_error(last_errno());
    }
    if (count == 0) {
      return text;
    }
    text.append(buffer.data(), static_cast<std::size_t>(count));
    if (text.size() > max_bytes) {
      return make_error(Errc::FileTooLarge);  // grew after fstat
    }
  }
}

}  // namespace gridftp::security
