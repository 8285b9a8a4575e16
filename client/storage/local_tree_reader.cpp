#include "client/storage/local_tree_reader.hpp"

#include <cerrno>

#include <dirent.h>
#include <sys/stat.h>

#include "client/storage/local_source.hpp"

namespace gridftp::client {
namespace {

using protocol::batch::TreeEntry;

std::error_code last_errno() { return {errno, std::generic_category()}; }

// A file of the tree as the encoder reads it: a LocalSource, whose read_at fills the span or
// fails (EIO when the file ended first, which fails the batch as a short read would).
class LocalFile final : public protocol::batch::TreeFile {
 public:
  explicit LocalFile(LocalSource source) : source_(std::move(source)) {}
  std::uint64_t size() const override { return source_.size_bytes(); }
  Result<std::size_t> read_at(std::uint64_t offset, std::span<char> into) override {
    if (auto read = source_.read_at(offset, into); !read) return make_error(read.error());
    return into.size();
  }

 private:
  LocalSource source_;
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
  auto source = LocalSource::open(local_path(relative));
  if (!source) return make_error(source.error());
  return std::unique_ptr<protocol::batch::TreeFile>(
      std::make_unique<LocalFile>(std::move(*source)));
}

}  // namespace gridftp::client
