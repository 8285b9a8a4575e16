#include "server/data/storage_tree_reader.hpp"

#include <cerrno>

#include <unistd.h>

namespace gridftp::server {
namespace {

using protocol::batch::TreeEntry;
using protocol::listing::FileType;

class StorageFile final : public protocol::batch::TreeFile {
 public:
  StorageFile(storage::UniqueFd fd, std::uint64_t size) : fd_(std::move(fd)), size_(size) {}
  std::uint64_t size() const override { return size_; }
  Result<std::size_t> read_at(std::uint64_t offset, std::span<char> into) override {
    for (;;) {
      const auto got = ::pread(fd_.get(), into.data(), into.size(), static_cast<off_t>(offset));
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno != EINTR) return make_error(std::error_code(errno, std::generic_category()));
    }
  }

 private:
  storage::UniqueFd fd_;
  std::uint64_t size_;
};

}  // namespace

std::string StorageTreeReader::virtual_path(const std::string& relative) const {
  if (relative.empty()) return top_;
  return top_ == "/" ? "/" + relative : top_ + "/" + relative;
}

Result<std::vector<TreeEntry>> StorageTreeReader::list(const std::string& relative) {
  auto listed = storage_.list_directory(virtual_path(relative));
  if (!listed) return make_error(listed.error());
  std::vector<TreeEntry> entries;
  entries.reserve(listed->size());
  for (auto& facts : *listed) {
    auto type = facts.type;
    const auto name = relative.empty() ? facts.name : relative + "/" + facts.name;
    bool link = false;
    if (type == FileType::Symlink) {
      // Judged where it leads, within the root like every other path.
      auto target = storage_.stat(virtual_path(name));
      type = target ? target->type : FileType::Other;
      link = true;
    }
    auto kind = TreeEntry::Kind::Other;
    if (type == FileType::File) kind = TreeEntry::Kind::File;
    if (type == FileType::Dir) {
      kind = link ? TreeEntry::Kind::LinkToDirectory : TreeEntry::Kind::Directory;
    }
    entries.push_back(TreeEntry{std::move(facts.name), kind});
  }
  return entries;
}

Result<std::unique_ptr<protocol::batch::TreeFile>> StorageTreeReader::open(
    const std::string& relative) {
  auto fd = storage_.open_for_read(virtual_path(relative));
  if (!fd) return make_error(fd.error());
  const auto size = storage::regular_file_size(fd->get());
  if (!size) return make_error(std::make_error_code(std::errc::invalid_argument));
  return std::unique_ptr<protocol::batch::TreeFile>(
      std::make_unique<StorageFile>(std::move(*fd), *size));
}

}  // namespace gridftp::server
