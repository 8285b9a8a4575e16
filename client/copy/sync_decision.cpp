#include "client/copy/sync_decision.hpp"

namespace gridftp::client {
namespace {

bool sizes_match(const FileFacts& source, const FileFacts& dest) {
  return source.size_bytes && dest.size_bytes && *source.size_bytes == *dest.size_bytes;
}

// guc: "transfer if the timestamp of the destination is older than the timestamp of the source".
// A copy made in the same second as the source's change keeps the source's second, so equal
// times count as up to date.
bool dest_not_older(const FileFacts& source, const FileFacts& dest) {
  return source.modify_seconds && dest.modify_seconds &&
         *dest.modify_seconds >= *source.modify_seconds;
}

}  // namespace

SyncVerdict decide_sync(unsigned level, const FileFacts& source,
                        const std::optional<FileFacts>& dest) {
  if (!dest) {
    return SyncVerdict::Copy;
  }
  if (level == 0) {
    return SyncVerdict::Skip;
  }
  if (!sizes_match(source, *dest)) {
    return SyncVerdict::Copy;
  }
  if (level == 1) {
    return SyncVerdict::Skip;
  }
  if (level == 2) {
    return dest_not_older(source, *dest) ? SyncVerdict::Skip : SyncVerdict::Copy;
  }
  return SyncVerdict::CompareChecksums;
}

}  // namespace gridftp::client
