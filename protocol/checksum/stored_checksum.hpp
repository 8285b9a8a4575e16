// The text of a checksum kept with a file (server/storage/stored_checksums keeps it in an extended
// attribute): the file's size and modification time when the value was computed, then the value
// as CKSM prints it. A reader answers from it only while the file still has that size and mtime.
//   "v1 <size> <mtime seconds>.<mtime nanoseconds, 9 digits> <lower-case hex>"
//   "v1 9 1700000000.123456789 11e60398"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gridftp::protocol::checksum {

// What a stored value is keyed to; equal versions mean "the same file" as far as the key can
// tell (content rewritten at the same size with the old mtime put back is the known blind spot).
struct FileVersion {
  std::uint64_t size_bytes = 0;
  std::int64_t mtime_seconds = 0;
  std::uint32_t mtime_nanoseconds = 0;

  bool operator==(const FileVersion&) const = default;
};

struct StoredChecksum {
  FileVersion version;
  std::string hex;  // 1 to kMaxStoredHexDigits lower-case hex digits
};

inline constexpr std::size_t kMaxStoredHexDigits = 128;  // SHA512

std::string format_stored_checksum(const StoredChecksum& stored);

// nullopt for anything not written by format_stored_checksum: another version, a missing or
// extra field, a sign, nanoseconds not below 10^9, upper-case or non-hex digits, trailing bytes.
std::optional<StoredChecksum> parse_stored_checksum(std::string_view text);

}  // namespace gridftp::protocol::checksum
