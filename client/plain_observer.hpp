// The plain per-file output gridcp has always printed, as a TransferObserver: nothing for a
// copied file by default, "Source:/Dest:" lines with -v, a bytes-and-rate line with -vb, a
// bytes counter while -vb runs, and one "gridcp: error: ..." line on stderr per failed file.
// A stand-in until the richer observers (progress display, --json) replace it. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include "client/transfer_observer.hpp"

namespace gridftp::client {

struct PlainOutput {
  bool verbose = false;        // -v
  bool verbose_bytes = false;  // -vb
  bool quiet = false;          // -q
};

class PlainObserver final : public TransferObserver {
 public:
  explicit PlainObserver(PlainOutput output) : output_(output) {}

  void file_started(const FileStart& start) override;
  void file_progress(std::size_t id, std::uint64_t bytes_so_far) override;
  void file_finished(const FileEnd& end) override;

 private:
  PlainOutput output_;
  std::mutex mutex_;
  // Only the URLs of files in flight, keyed by id, so the end line can name them.
  std::map<std::size_t, FileStart> in_flight_;
};

}  // namespace gridftp::client
