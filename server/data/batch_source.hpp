// The sending side of BRET (docs/WIRE.md §7): walks a directory of the user's view depth-first,
// each directory's names sorted by bytes, and turns it into batch records, a buffer at a time.
// Every path goes through PosixStorage, so the batch sees exactly what RETR and MLSD would.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/batch/batch_path.hpp"
#include "protocol/core/crc32c.hpp"
#include "protocol/core/result.hpp"
#include "server/storage/posix_storage.hpp"

namespace gridftp::server {

class BatchSource {
 public:
  // `top`: the normalized virtual path of the directory to send. Files larger than
  // `refer_above` bytes go as 'R' records (0: none). `restart`: files before it are left out.
  BatchSource(const storage::PosixStorage& storage, std::string top, std::uint64_t refer_above,
              std::optional<protocol::batch::RestartPoint> restart);

  // Appends records to `out` until it holds at least `want` bytes or the batch has ended (the
  // end record appended). A file that cannot be opened or is not a regular file becomes an 'X'
  // record. Returns true once the end record is in `out`.
  // Errors: a read error, or a file that shrank while it was sent (its record cannot be
  // completed, so the transfer fails).
  Result<bool> fill(std::string& out, std::size_t want);

  std::uint64_t files_sent() const { return files_; }
  std::uint64_t unreadable() const { return unreadable_; }

 private:
  struct Entry {
    std::string path;  // relative to top
    protocol::listing::FileType type;
  };
  std::string virtual_path(const std::string& relative) const;
  void push_children(const std::string& relative);
  // Opens `entry` and appends its header, or an 'R'/'X' record, or nothing (restart).
  Result<void> start_file(const Entry& entry, std::string& out);
  Result<void> continue_file(std::string& out, std::size_t want);

  const storage::PosixStorage& storage_;
  std::string top_;
  std::uint64_t refer_above_;
  std::optional<protocol::batch::RestartPoint> restart_;
  std::vector<Entry> pending_;  // next entry at the back
  bool started_ = false;
  bool ended_ = false;
  // The file being sent.
  std::optional<storage::UniqueFd> file_;
  std::uint64_t position_ = 0;
  std::uint64_t end_ = 0;
  protocol::Crc32c crc_;
  std::uint64_t files_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t unreadable_ = 0;
};

}  // namespace gridftp::server
