// The hidden files that uploads are received under (upload.hpp). One that a failed MODE E or
// restartable upload kept stays for a restart; these functions let its owner see it and let the
// server expire it, so a transfer that is never restarted does not hold its disk space for good.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::server::storage {

struct PartialUpload {
  std::string target;  // the name the upload will have once complete (hashed if it was long)
  std::uint64_t bytes = 0;
  std::int64_t modified_unix = 0;  // last write
  bool in_use = false;             // an upload is writing it now
};

// The partial uploads in the open directory `dir_fd`, in name order.
std::vector<PartialUpload> list_partial_uploads(int dir_fd);

// Removes the partial uploads in `dir_fd` last written before `now_unix - max_age` that no
// upload holds (each running upload keeps an exclusive lock on its file). Returns how many.
std::size_t expire_partial_uploads(int dir_fd, std::chrono::seconds max_age, std::int64_t now_unix);

// Takes an upload's exclusive lock on its open file `fd`, held until the descriptor closes. A
// listing or an expiry sweep holds the lock only for a moment, so a busy lock is tried again
// for a few milliseconds before the upload is refused (EWOULDBLOCK: another upload has it).
// ENOENT: a sweep removed the file meanwhile, so the caller opens the name afresh.
Result<void> lock_for_upload(int fd);

}  // namespace gridftp::server::storage
