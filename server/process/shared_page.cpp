#include "server/process/shared_page.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

namespace gridftp::server {
namespace {

std::error_code last_errno() { return std::error_code(errno, std::generic_category()); }

}  // namespace

Result<SharedPage> SharedPage::create(const char* name, std::size_t bytes) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return make_error(last_errno());
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const auto error = last_errno();
    ::close(fd);
    return make_error(error);
  }
  return attach(fd, bytes);  // a fresh memfd reads as zeros
}

Result<SharedPage> SharedPage::attach(int fd, std::size_t bytes) {
  void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) {
    const auto error = last_errno();
    ::close(fd);
    return make_error(error);
  }
  return SharedPage(fd, mapped, bytes);
}

SharedPage::SharedPage(SharedPage&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(other.bytes_) {}

SharedPage::~SharedPage() {
  if (data_ != nullptr) ::munmap(data_, bytes_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace gridftp::server
