#include "server/data/block_source.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace gridftp::server {

BlockSource BlockSource::file(int fd, std::uint64_t file_base) {
  struct stat facts {};
  const bool regular = ::fstat(fd, &facts) == 0 && S_ISREG(facts.st_mode);
  return BlockSource(fd, file_base, nullptr, regular);
}

Result<std::size_t> BlockSource::read_at(std::uint64_t wire_offset, std::span<char> out) const {
  if (text_) {
    if (wire_offset >= text_->size()) return std::size_t{0};
    const auto count = std::min<std::size_t>(out.size(), text_->size() - wire_offset);
    std::memcpy(out.data(), text_->data() + wire_offset, count);
    return count;
  }
  std::size_t filled = 0;
  while (filled < out.size()) {
    const auto got = ::pread(fd_, out.data() + filled, out.size() - filled,
                             static_cast<off_t>(file_base_ + wire_offset + filled));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return make_error(std::error_code(errno, std::generic_category()));
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  return filled;
}

}  // namespace gridftp::server
