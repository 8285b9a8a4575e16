// What the copy engine tells the command line about each file as it goes: the seam between
// moving bytes (copy_job, transfer) and showing them (the progress display, -vb lines, --json).
// The engine calls these from its worker threads, several files at once under -cc, so an
// observer must be thread-safe. Each file gets an id, unique within one gridcp run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "client/clock.hpp"
#include "protocol/udpx/transfer_figures.hpp"

namespace gridftp::client {

// A UDPX transfer's figures (docs/UDPX.md §8), for the -vb line and --json.
using NetworkFigures = protocol::udpx::TransferFigures;

struct FileStart {
  std::size_t id = 0;
  std::string source;  // URLs as the user would spell them
  std::string dest;
  std::optional<std::uint64_t> size;  // bytes expected, when the source told us (SIZE, stat)
  unsigned streams = 1;               // data connections: 1 in stream mode, -p in MODE E
};

// What a transfer learnt once under way: the size the source's server gave (SIZE), and the data
// connections it really uses (1 where a server without MODE E turned -p into stream mode).
struct FileShape {
  std::optional<std::uint64_t> size;  // nullopt: nothing new about the size
  unsigned streams = 1;
};

enum class FileResult {
  Copied,
  Skipped,  // -sync found the destination already up to date
  Failed,
};

struct FileEnd {
  std::size_t id = 0;
  FileResult result = FileResult::Copied;
  std::uint64_t bytes = 0;  // bytes moved in this run (a resumed file counts only what moved)
  Clock::duration elapsed{};
  unsigned attempts = 1;               // 1 + restarts after failures (-rst)
  std::string error;                   // Failed: one line, names the file and says what went wrong
  std::optional<NetworkFigures> udpx;  // a get or put over UDPX
};

class TransferObserver {
 public:
  virtual ~TransferObserver() = default;
  virtual void file_started(const FileStart& start) = 0;
  // Bytes of this file known to have arrived so far (receiver counts, or the dest's 112
  // performance markers in third-party), at most a few times a second.
  virtual void file_progress(std::size_t id, std::uint64_t bytes_so_far) = 0;
  // What the transfer learnt after file_started (FileShape). Only the live display uses it.
  virtual void file_shape(std::size_t /*id*/, const FileShape& /*shape*/) {}
  virtual void file_finished(const FileEnd& end) = 0;
};

}  // namespace gridftp::client
