// -sync: whether a file must be copied, from what is known of source and destination, with
// globus-url-copy's -sync-level meanings (guc -help, GCT 6.2): 0 copy only when the destination
// is missing; 1 also when the sizes differ; 2 (the default) also when the destination is older
// than the source; 3 also when the checksums differ. Pure; gathering the facts is the engine's.
#pragma once

#include <cstdint>
#include <optional>

namespace gridftp::client {

inline constexpr unsigned kDefaultSyncLevel = 2;
inline constexpr unsigned kMaxSyncLevel = 3;

// What a listing, MLST or stat(2) said about one file. Unknown facts are nullopt.
struct FileFacts {
  std::optional<std::uint64_t> size_bytes;
  std::optional<std::int64_t> modify_seconds;  // Unix time, whole seconds (MLSx Modify is UTC)
};

enum class SyncVerdict {
  Copy,
  Skip,
  CompareChecksums,  // level 3 with equal sizes: copy only if the checksums differ
};

// `dest` is nullopt when the destination does not exist. A fact the level needs but one side
// does not know counts as a difference (copying is the safe answer). Levels above 3 act as 3.
SyncVerdict decide_sync(unsigned level, const FileFacts& source,
                        const std::optional<FileFacts>& dest);

}  // namespace gridftp::client
