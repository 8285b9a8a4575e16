#include "server/storage/partial_uploads.hpp"

#include <algorithm>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/storage/unique_fd.hpp"
#include "server/storage/upload.hpp"

namespace gridftp::server::storage {
namespace {

// Calls `visit(name, stat, fd)` for each partial upload in `dir_fd` that is a regular file,
// with the file opened (O_NOFOLLOW) so that what is judged is what is removed.
template <typename Visit>
void for_each_partial(int dir_fd, Visit visit) {
  // A descriptor of our own to read: `dir_fd` may be O_PATH (the upload's checked parent).
  const int read_fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (read_fd < 0) return;
  DIR* dir = ::fdopendir(read_fd);
  if (dir == nullptr) {
    ::close(read_fd);
    return;
  }
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (!name.starts_with(kPartialPrefix)) continue;
    UniqueFd file(::openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    struct stat info {};
    if (!file.valid() || ::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    visit(name, info, file.get());
  }
  ::closedir(dir);
}

// True when an upload holds the file's lock.
bool in_use(int fd) {
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) return true;
  ::flock(fd, LOCK_UN);
  return false;
}

}  // namespace

std::vector<PartialUpload> list_partial_uploads(int dir_fd) {
  std::vector<PartialUpload> out;
  for_each_partial(dir_fd, [&](const std::string& name, const struct stat& info, int fd) {
    out.push_back(PartialUpload{name.substr(kPartialPrefix.size()),
                                static_cast<std::uint64_t>(info.st_size),
                                static_cast<std::int64_t>(info.st_mtim.tv_sec), in_use(fd)});
  });
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.target < b.target; });
  return out;
}

std::size_t expire_partial_uploads(int dir_fd, std::chrono::seconds max_age,
                                   std::int64_t now_unix) {
  std::size_t removed = 0;
  for_each_partial(dir_fd, [&](const std::string& name, const struct stat& info, int fd) {
    if (info.st_mtim.tv_sec > now_unix - max_age.count()) return;
    // Held while removing: an upload starting now waits for the lock, then finds the file
    // unlinked and starts afresh (or, for a restart, finds nothing to continue): lock_for_upload.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) return;
    struct stat named {};
    if (::fstatat(dir_fd, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        named.st_ino == info.st_ino && named.st_dev == info.st_dev &&
        ::unlinkat(dir_fd, name.c_str(), 0) == 0) {
      ++removed;
    }
  });
  return removed;
}

Result<void> lock_for_upload(int fd) {
  constexpr int kTries = 5;
  for (int attempt = 1;; ++attempt) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK || attempt == kTries)
      return make_error(std::error_code(errno, std::generic_category()));
    ::usleep(1000);
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) return make_error(std::error_code(errno, std::generic_category()));
  if (info.st_nlink == 0)
    return make_error(std::make_error_code(std::errc::no_such_file_or_directory));
  return {};
}

}  // namespace gridftp::server::storage
