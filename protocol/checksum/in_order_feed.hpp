// Whether a block may go to a digest that needs the bytes in file order (MD5, SHA*), computed
// while an upload arrives: only a block that starts where the bytes fed so far end. The first
// block out of order (ahead of that point, or back over it) ends the feed for good, and the digest
// is left to be computed by reading the file once it is closed. Order-free checksums (Adler-32,
// CRC-32C) go through BlockChecksums instead.
#pragma once

#include <cstdint>

namespace gridftp::protocol::checksum {

class InOrderFeed {
 public:
  // True when [offset, offset + length) continues the bytes fed so far; the caller then feeds
  // them, in this order. An empty block is accepted wherever it lies and changes nothing.
  bool accept(std::uint64_t offset, std::uint64_t length);

  // True when the bytes fed are exactly those of a file of `size` bytes.
  bool covers(std::uint64_t size) const { return !given_up_ && fed_bytes_ == size; }
  bool is_given_up() const { return given_up_; }
  std::uint64_t fed_bytes() const { return fed_bytes_; }

 private:
  std::uint64_t fed_bytes_ = 0;
  bool given_up_ = false;
};

}  // namespace gridftp::protocol::checksum
