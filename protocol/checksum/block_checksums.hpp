// The whole-file Adler-32 or CRC-32C from the checksums of blocks that arrive in any order, as
// MODE E's parallel streams deliver them: blocks that meet are combined at once, so what is kept
// is one run per stretch of the file received so far. Not for digests that need the bytes in
// order (MD5, SHA*): those go through InOrderFeed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace gridftp::protocol::checksum {

enum class CombinableChecksum { Adler32, Crc32c };

// The value of no bytes at all: 1 for Adler-32, 0 for CRC-32C.
std::uint32_t empty_checksum(CombinableChecksum kind);

// The value of A followed by B (adler32_combine / crc32c_combine).
std::uint32_t combine_checksums(CombinableChecksum kind, std::uint32_t first, std::uint32_t second,
                                std::uint64_t second_length);

class BlockChecksums {
 public:
  // More separate runs than this and the value is given up: a peer that leaves a gap after every
  // block would otherwise grow the map with the file.
  static constexpr std::size_t kMaxRuns = 65536;

  explicit BlockChecksums(CombinableChecksum kind) : kind_(kind) {}

  // Records that bytes [offset, offset + length) have checksum `value`. A block that overlaps one
  // already recorded (a resend, a rewrite) gives the value up: which bytes the file holds there
  // is no longer known from the blocks alone. Empty blocks are ignored.
  void add(std::uint64_t offset, std::uint64_t length, std::uint32_t value);

  // The checksum of a file of `size` bytes when the blocks cover exactly [0, size), each byte
  // once; nullopt otherwise (a gap, bytes past `size`, an overlap, too many runs).
  std::optional<std::uint32_t> whole(std::uint64_t size) const;

  bool is_given_up() const { return given_up_; }
  std::size_t run_count() const { return runs_.size(); }

 private:
  struct Run {
    std::uint64_t end = 0;
    std::uint32_t value = 0;
  };

  void give_up();

  CombinableChecksum kind_;
  std::map<std::uint64_t, Run> runs_;  // keyed by the run's first byte
  bool given_up_ = false;
};

}  // namespace gridftp::protocol::checksum
