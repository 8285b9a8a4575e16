// A local file written under a temporary name next to its destination and renamed into place
// only on commit(), so a failed download never leaves a partial file under the real name. A
// destination that exists and is neither a regular file nor a directory (a device, a FIFO) is
// written in place instead: nothing is renamed over it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::client {

class StagedFile {
 public:
  // Creates "<path>.gridcp-part" (truncating a leftover one). Errors: errno from open(2).
  static Result<StagedFile> create(const std::string& path);
  // Opens a leftover "<path>.gridcp-part" of an earlier failed attempt without truncating it
  // (-rst resumes after its last byte), creating it if there is none. Errors: as create().
  static Result<StagedFile> reopen(const std::string& path);
  // The temporary name of `path`, for removing a partial file kept by keep_for_resume().
  static std::string temporary_path_for(const std::string& path);

  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  // Removes the temporary file unless commit() succeeded.
  ~StagedFile();

  // Errors: errno from write(2).
  Result<void> write(std::string_view bytes);
  // Writes `bytes` at `offset` (pwrite(2)); safe from several threads at once, as MODE E blocks
  // arrive in any order. Errors: errno from pwrite(2).
  Result<void> write_at(std::uint64_t offset, std::string_view bytes) const;
  // Cuts the temporary file to `size` bytes (a UDPX get keeps only what arrived in order, for
  // -rst to resume after). Errors: errno from ftruncate(2).
  Result<void> truncate(std::uint64_t size) const;
  // Closes and renames onto the destination. Errors: errno from close(2) or rename(2).
  Result<void> commit();

  const std::string& temporary_path() const { return temporary_path_; }
  // Current size of the temporary file (for stream mode, the bytes received in order).
  // Errors: errno from fstat(2).
  Result<std::uint64_t> size_bytes() const;
  // Leaves the temporary file in place when this object goes without commit(), so that a later
  // attempt can reopen() it; the caller then owns removing it if no attempt succeeds.
  void keep_for_resume() { keep_ = true; }

 private:
  StagedFile(int fd, std::string path, std::string temporary_path);
  // The destination opened in place when it is a device or FIFO; nullopt for anything else.
  static std::optional<Result<StagedFile>> open_special(const std::string& path);
  void discard();

  int fd_ = -1;
  std::string path_;
  std::string temporary_path_;
  bool committed_ = false;
  bool keep_ = false;
};

}  // namespace gridftp::client
