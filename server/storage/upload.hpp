// One file being received. A replacing upload writes a hidden temporary file beside the target and
// renames it into place only on commit(), so a failed or cut-off upload never looks complete.
// Appends and restarts (APPE, REST+STOR) write in place: the client asked to extend what is there.
// An upload may compute checksums from the bytes it writes and store them with the file on commit.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "protocol/core/result.hpp"
#include "server/storage/unique_fd.hpp"
#include "server/storage/upload_checksums.hpp"

namespace gridftp::server::storage {

// Names of in-progress uploads start with this; listings hide them.
inline constexpr std::string_view kPartialPrefix = ".gridftpd-part.";

class Upload {
 public:
  // `keep_partial_on_abort`: leave the hidden partial file for a later restart (MODE E).
  Upload(UniqueFd file, UniqueFd directory, std::string temp_name, std::string final_name,
         std::uint64_t start_offset, bool keep_partial_on_abort = false);
  Upload(Upload&& other) noexcept;
  // An unfinished upload that is overwritten is aborted first, so its temp file is not leaked.
  Upload& operator=(Upload&& other) noexcept;
  Upload(const Upload&) = delete;
  Upload& operator=(const Upload&) = delete;
  ~Upload();

  // Writes at `offset` relative to the upload's start (REST/APPE offset already applied).
  // Safe to call from several threads at once for different offsets (MODE E streams).
  Result<void> write_at(std::uint64_t offset, std::span<const char> bytes);
  // Makes the upload visible under its final name. A durable upload (make_durable()) first
  // syncs the file's data, then renames, then syncs the directory, so the name never points at
  // data a power cut could still take away, and a reply sent after commit() means the file
  // survives one (docs/STORAGE.md).
  // Then stores the checksums computed on the way when they cover the whole file
  // (stored_checksums; best effort, never an error).
  // Errors: errno of the fdatasync, rename or directory fsync.
  Result<void> commit();
  // The bytes written so far reach stable storage (fdatasync). For restart markers that name
  // only what a crash keeps. Errors: errno of the fdatasync.
  Result<void> sync_data() const;
  void make_durable() { durable_ = true; }
  bool durable() const { return durable_; }
  // Removes the temporary file unless it is kept for a restart; in-place uploads keep what arrived.
  void abort();

  // An in-place upload that created its file: abort() removes the file again (if it is still
  // the one under final_name), so a failed transfer to a new name leaves nothing that could
  // pass for the file. Not for uploads kept for a restart.
  void remove_on_abort() { remove_on_abort_ = !keep_partial_on_abort_; }

  // Every byte written from here on goes through `checksums` too. Call before the first write.
  void compute_checksums(std::unique_ptr<UploadChecksums> checksums) {
    checksums_ = std::move(checksums);
  }

  std::uint64_t start_offset() const { return start_offset_; }
  int fd() const { return file_.get(); }
  // False for a device (the benchmarks' /dev/null) or a FIFO: nothing to checksum and store, no
  // inode lock that writers of one file would queue for.
  bool writes_regular_file() const;

 private:
  UniqueFd file_;
  UniqueFd directory_;
  std::string temp_name_;  // empty for in-place uploads
  std::string final_name_;
  std::uint64_t start_offset_ = 0;
  bool keep_partial_on_abort_ = false;
  bool remove_on_abort_ = false;
  bool finished_ = false;
  bool durable_ = false;
  std::unique_ptr<UploadChecksums> checksums_;  // null: none computed

  void store_checksums();
};

}  // namespace gridftp::server::storage
