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
  static BlockSource file(int fd, std::uint64_t file_base);
  static BlockSource text(std::shared_ptr<const std::string> text) {
    return BlockSource(-1, 0, std::move(text), false);
  }

  // Fills `out` from `wire_offset`; short only at the end of the data. Errors: errno from pread.
  Result<std::size_t> read_at(std::uint64_t wire_offset, std::span<char> out) const;
  // A regular file can go to a clear socket with sendfile: its descriptor, else -1. Devices
  // (the benchmarks' /dev/zero) are read instead: splicing them allocates and fills a fresh page
  // per 4 KiB, which costs more than the copy it saves once several streams run.
  int splice_descriptor() const { return splice_ ? fd_ : -1; }
  std::uint64_t file_offset(std::uint64_t wire_offset) const { return file_base_ + wire_offset; }

 private:
  BlockSource(int fd, std::uint64_t file_base, std::shared_ptr<const std::string> text, bool splice)
      : fd_(fd), file_base_(file_base), text_(std::move(text)), splice_(splice) {}
  int fd_;
  std::uint64_t file_base_;
  std::shared_ptr<const std::string> text_;
  bool splice_;
};

}  // namespace gridftp::server
