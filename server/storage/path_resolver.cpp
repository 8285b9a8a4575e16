#include "server/storage/path_resolver.hpp"

#include <array>
#include <cerrno>

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "protocol/control/virtual_path.hpp"

namespace gridftp::server::storage {
namespace {

std::error_code last_errno() { return {errno, std::generic_category()}; }

int openat2_beneath(int dir_fd, const char* relative, int flags, unsigned mode) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(static_cast<unsigned>(flags | O_CLOEXEC));
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  long fd = 0;
  do {
    fd = ::syscall(SYS_openat2, dir_fd, relative, &how, sizeof how);
  } while (fd < 0 && errno == EAGAIN);
  return static_cast<int>(fd);
}

Result<std::string> fd_real_path(int fd) {
  std::array<char, 4096> buffer{};
  const auto link = "/proc/self/fd/" + std::to_string(fd);
  const auto length = ::readlink(link.c_str(), buffer.data(), buffer.size() - 1);
  if (length < 0) return make_error(last_errno());
  return std::string(buffer.data(), static_cast<std::size_t>(length));
}

}  // namespace

Result<PathResolver> PathResolver::open_root(const std::filesystem::path& root) {
  UniqueFd fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return make_error(last_errno());
  auto real = fd_real_path(fd.get());
  if (!real) return make_error(real.error());
  return PathResolver(std::move(fd), std::move(*real));
}

Result<UniqueFd> PathResolver::open(std::string_view virtual_path, int flags, unsigned mode) const {
  // openat2 takes root-relative names; "/" itself is ".".
  std::string relative(virtual_path.size() > 1 ? virtual_path.substr(1) : ".");
  const int fd = openat2_beneath(root_fd_.get(), relative.c_str(), flags, mode);
  if (fd < 0) return make_error(last_errno());
  return UniqueFd(fd);
}

Result<UniqueFd> PathResolver::open_parent(std::string_view virtual_path) const {
  return open(protocol::control::parent_path(virtual_path), O_PATH | O_DIRECTORY);
}

Result<std::string> PathResolver::real_virtual_path(int fd) const {
  auto real = fd_real_path(fd);
  if (!real) return make_error(real.error());
  if (*real == root_real_) return std::string("/");
  if (root_real_ == "/") return std::move(*real);
  if (real->size() > root_real_.size() && real->compare(0, root_real_.size(), root_real_) == 0 &&
      (*real)[root_real_.size()] == '/') {
    return real->substr(root_real_.size());
  }
  // Beneath-resolution makes this unreachable short of a rename race; refuse rather than guess.
  return make_error(std::make_error_code(std::errc::permission_denied));
}

}  // namespace gridftp::server::storage
