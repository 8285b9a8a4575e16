// The receiving side of BSTO (docs/WIRE.md §7): batch records become directories and uploads
// below one directory of the user's view, each file under its hidden partial name until its
// CRC-32C matched. Every path goes through PosixStorage (writable areas, path rules). The
// bytes themselves are written by the caller (off the session's thread, see batch_transfer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/batch/batch_decoder.hpp"
#include "protocol/core/crc32c.hpp"
#include "server/storage/posix_storage.hpp"

namespace gridftp::server {

class BatchSink {
 public:
  // `top`: the normalized virtual path of the directory the batch lands in.
  BatchSink(const storage::PosixStorage& storage, std::string top)
      : storage_(storage), top_(std::move(top)) {}

  protocol::batch::BatchDecoder& decoder() { return decoder_; }
  // Directory, FileBegin, FileEnd, Refer, FileError and End events (not Data: see upload()).
  // Errors: storage errors for a directory or file that cannot be made; batch
  // Errc::ChecksumMismatch; WrongCounts for a file that starts past 0 (BSTO does not resume).
  Result<void> handle(const protocol::batch::BatchEvent& event);
  // The file being received, for Data events; nullptr between files.
  storage::Upload* upload() { return upload_ ? &*upload_ : nullptr; }
  std::uint64_t position() const { return position_; }
  // Data of `bytes` went to upload() at position().
  void wrote(std::span<const char> bytes);
  // The transfer ended early: the file being received is removed.
  void abort();

  std::uint64_t files_stored() const { return stored_; }
  std::uint64_t bytes_stored() const { return bytes_; }
  // Files the sender named but did not send ('R' and 'X' records), and the first of them.
  std::uint64_t unsent() const { return unsent_; }
  const std::string& first_unsent() const { return first_unsent_; }

 private:
  std::string virtual_path(const std::string& relative) const;

  const storage::PosixStorage& storage_;
  std::string top_;
  protocol::batch::BatchDecoder decoder_;
  std::optional<storage::Upload> upload_;
  std::string path_;
  std::uint64_t position_ = 0;
  protocol::Crc32c crc_;
  std::uint64_t stored_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t unsent_ = 0;
  std::string first_unsent_;
};

}  // namespace gridftp::server
