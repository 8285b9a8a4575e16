#include "protocol/checksum/block_checksums.hpp"

#include <iterator>

#include "protocol/core/adler32.hpp"
#include "protocol/core/crc32c.hpp"

namespace gridftp::protocol::checksum {

std::uint32_t empty_checksum(CombinableChecksum kind) {
  return kind == CombinableChecksum::Adler32 ? 1U : 0U;
}

std::uint32_t combine_checksums(CombinableChecksum kind, std::uint32_t first, std::uint32_t second,
                                std::uint64_t second_length) {
  return kind == CombinableChecksum::Adler32 ? adler32_combine(first, second, second_length)
                                             : crc32c_combine(first, second, second_length);
}

void BlockChecksums::give_up() {
  given_up_ = true;
  runs_.clear();
}

void BlockChecksums::add(std::uint64_t offset, std::uint64_t length, std::uint32_t value) {
  if (given_up_ || length == 0) return;
  const std::uint64_t end = offset + length;
  if (end < offset) return give_up();  // past 2^64: no file holds it
  auto next = runs_.lower_bound(offset);
  if (next != runs_.end() && next->first < end) return give_up();
  auto previous = next == runs_.begin() ? runs_.end() : std::prev(next);
  if (previous != runs_.end() && previous->second.end > offset) return give_up();

  auto joined = previous;
  if (previous != runs_.end() && previous->second.end == offset) {
    previous->second.value = combine_checksums(kind_, previous->second.value, value, length);
    previous->second.end = end;
  } else {
    joined = runs_.emplace_hint(next, offset, Run{end, value});
  }
  if (next != runs_.end() && next->first == end) {
    joined->second.value = combine_checksums(kind_, joined->second.value, next->second.value,
                                             next->second.end - next->first);
    joined->second.end = next->second.end;
    runs_.erase(next);
  }
  if (runs_.size() > kMaxRuns) give_up();
}

std::optional<std::uint32_t> BlockChecksums::whole(std::uint64_t size) const {
  if (given_up_) return std::nullopt;
  if (size == 0 && runs_.empty()) return empty_checksum(kind_);
  if (runs_.size() != 1) return std::nullopt;
  const auto& [start, run] = *runs_.begin();
  if (start != 0 || run.end != size) return std::nullopt;
  return run.value;
}

}  // namespace gridftp::protocol::checksum
