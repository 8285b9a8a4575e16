// The receiving side of a batch get (BRET; docs/WIRE.md §7): turns the stream's records into
// files below a local directory, each written under its temporary name and renamed into place
// only when its CRC-32C matches. It remembers the restart point (BRST) of what it holds, so an
// attempt after a broken connection resumes at the first missing byte and nothing arrives twice.
// Used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "client/storage/staged_file.hpp"
#include "client/transfer/transfer_observer.hpp"
#include "protocol/batch/batch_decoder.hpp"
#include "protocol/batch/batch_path.hpp"
#include "protocol/core/crc32c.hpp"

namespace gridftp::client {

struct ReferredFile {
  std::string path;  // within the batch
  std::uint64_t size = 0;
};

class BatchReceiver {
 public:
  // `dest_dir`: the local directory the batch lands in (made when missing). `source_base` and
  // `dest_base` prefix the batch paths in what the observer is told. `next_id` numbers files.
  BatchReceiver(std::string dest_dir, std::string source_base, std::string dest_base,
                TransferObserver* observer, std::function<std::size_t()> next_id);
  ~BatchReceiver();
  BatchReceiver(const BatchReceiver&) = delete;
  BatchReceiver& operator=(const BatchReceiver&) = delete;

  // Before an attempt: a fresh decoder for a fresh stream.
  void begin_attempt();
  // Bytes off the data connection. Errors: the decoder's (batch_errors.hpp) and local write
  // errors (errno); the batch cannot go on after either.
  Result<void> consume(std::span<const char> bytes);
  // The stream ended (EOF). Errors: batch Errc::Truncated when its end record had not come.
  Result<void> finish_stream();
  // The attempt failed: the file being received is kept for a resume when any of it is on
  // disk, and dropped otherwise.
  void interrupt();
  // No attempt will follow: a file left unfinished is reported failed with `why`.
  void give_up(const std::string& why);

  // Where the next attempt resumes (BRST), nullopt before any file is held.
  const std::optional<protocol::batch::RestartPoint>& restart_point() const { return held_; }
  // Files the server left to ordinary transfers ('R' records).
  const std::vector<ReferredFile>& referred() const { return referred_; }
  std::uint64_t files_copied() const { return copied_; }
  std::uint64_t files_failed() const { return failed_; }
  bool is_complete() const { return complete_; }

 private:
  struct Current {
    std::size_t id = 0;
    std::string path;
    std::optional<StagedFile> staged;
    std::uint64_t position = 0;
    std::uint64_t end = 0;
    std::uint64_t moved = 0;  // bytes moved for it in this run, over every attempt
    unsigned attempts = 1;
    Clock::time_point started;
  };
  Result<void> handle(const protocol::batch::BatchEvent& event);
  Result<void> begin_file(const protocol::batch::BatchEvent& event);
  Result<void> end_file(std::uint32_t crc);
  void report_failed(std::size_t id, const std::string& path, const std::string& message,
                     unsigned attempts = 1);
  std::string local_path(const std::string& path) const;

  std::string dest_dir_;
  std::string source_base_;
  std::string dest_base_;
  TransferObserver* observer_;
  std::function<std::size_t()> next_id_;
  protocol::batch::BatchDecoder decoder_;
  std::optional<Current> current_;
  protocol::Crc32c crc_;
  std::optional<protocol::batch::RestartPoint> held_;
  std::vector<ReferredFile> referred_;
  std::uint64_t copied_ = 0;
  std::uint64_t failed_ = 0;
  bool complete_ = false;
};

}  // namespace gridftp::client
