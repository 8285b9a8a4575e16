#include "client/storage/local_tree_reader.hpp"

#include <cerrno>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gridftp::client {
namespace {

using protocol::batch::TreeEntry;

std::error_code last_errno() { return {errno, std::generic_category()}; }

class LocalFile final : public protocol::batch::TreeFile {
 public:
  LocalFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  ~LocalFile() override { ::close(fd_); }
  LocalFile(const LocalFile&) = delete;
  LocalFile& operator=(const LocalFile&) = delete;
  std::uint64_t size() const override { return size_; }
  Result<std::size_t> read_at(std::uint64_t offset, std::span<char> into) override {
    for (;;) {
      const auto got = ::pread(fd_, into.data(), into.size(), static_cast<off_t>(offset));
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno != EINTR) return make_error(last_errno());
    }
  }

 private:
  int fd_;
  std::uint64_t size_;
};

}  // namespace

std::string LocalTreeReader::local_path(const std::string& relative) const {
  if (relative.empty()) return top_;
  return top_.ends_with('/') ? top_ + relative : top_ + "/" + relative;
}

Result<std::vector<TreeEntry>> LocalTreeReader::list(const std::string& relative) {
  const auto directory = local_path(relative);
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return make_error(last_errno());
  std::vector<TreeEntry> entries;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    // Leftovers of our own interrupted gets are not part of the tree.
    if (name == "." || name == ".." || name.ends_with(".gridcp-part")) continue;
    const auto path = directory + "/" + name;
    struct stat link {};
    struct stat target {};
    if (::lstat(path.c_str(), &link) != 0) continue;  // vanished meanwhile
    const bool is_link = S_ISLNK(link.st_mode);
    const bool resolved = ::stat(path.c_str(), &target) == 0;
    auto kind = TreeEntry::Kind::Other;
    if (resolved && S_ISREG(target.st_mode)) kind = TreeEntry::Kind::File;
    if (resolved && S_ISDIR(target.st_mode)) {
      kind = is_link ? TreeEntry::Kind::LinkToDirectory : TreeEntry::Kind::Directory;
    }
    entries.push_back(TreeEntry{name, kind});
  }
  ::closedir(dir);
  return entries;
}

Result<std::unique_ptr<protocol::batch::TreeFile>> LocalTreeReader::open(
    const std::string& relative) {
  const int fd = ::open(local_path(relative).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(last_errno());
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return make_error(std::make_error_code(std::errc::invalid_argument));
  }
  return std::unique_ptr<protocol::batch::TreeFile>(
      std::make_unique<LocalFile>(fd, static_cast<std::uint64_t>(info.st_size)));
}

}  // namespace gridftp::client
