// A local file written under a temporary name next to its destination and renamed into place
// only on commit(), so a failed download never leaves a partial file under the real name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::client {

class StagedFile {
 public:
  // Creates "<path>.gridcp-part" (truncating a leftover one). Errors: errno from open(2).
  static Result<StagedFile> create(const std::string& path);

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
  // Closes and renames onto the destination. Errors: errno from close(2) or rename(2).
  Result<void> commit();

  const std::string& temporary_path() const { return temporary_path_; }

 private:
  StagedFile(int fd, std::string path, std::string temporary_path);
  void discard();

  int fd_ = -1;
  std::string path_;
  std::string temporary_path_;
  bool committed_ = false;
};

}  // namespace gridftp::client
