// What a MODE E sender reads: a file seen through a window (ERET's offset and length) or an
// in-memory listing. Wire offsets start at 0 for the window's first byte (GFD.20 ERET P).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "protocol/core/result.hpp"

namespace gridftp::server {

class BlockSource {
 public:
  static BlockSource file(int fd, std::uint64_t file_base) { return BlockSource(fd, file_base, nullptr); }
  static BlockSource text(std::shared_ptr<const std::string> text) { return BlockSource(-1, 0, std::move(text)); }

  // Fills `out` from `wire_offset`; short only at the end of the data. Errors: errno from pread.
  Result<std::size_t> read_at(std::uint64_t wire_offset, std::span<char> out) const;
  // A file source can go to a clear socket with sendfile: its descriptor and the file offset of
  // a wire offset. -1 for in-memory text.
  int file_descriptor() const { return text_ ? -1 : fd_; }
  std::uint64_t file_offset(std::uint64_t wire_offset) const { return file_base_ + wire_offset; }

 private:
  BlockSource(int fd, std::uint64_t file_base, std::shared_ptr<const std::string> text)
      : fd_(fd), file_base_(file_base), text_(std::move(text)) {}
  int fd_;
  std::uint64_t file_base_;
  std::shared_ptr<const std::string> text_;
};

}  // namespace gridftp::server
