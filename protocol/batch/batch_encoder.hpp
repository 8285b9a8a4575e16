// The sending side of a batch (docs/WIRE.md §7), shared by gridftpd (BRET) and gridcp (a batch
// put): walks a tree depth-first, each directory's names sorted by bytes, and turns it into
// batch records, a buffer at a time. The tree is read through a TreeReader that the caller
// implements over its own file access (the server's user view, the client's local disk), so
// this code does no I/O of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/batch/batch_path.hpp"
#include "protocol/core/crc32c.hpp"
#include "protocol/core/result.hpp"

namespace gridftp::protocol::batch {

struct TreeEntry {
  // LinkToDirectory: not followed, so a loop of links cannot make the walk endless. Other:
  // anything that is not a regular file, directory or link to one (devices, FIFOs, sockets).
  enum class Kind { File, Directory, LinkToDirectory, Other };
  std::string name;
  Kind kind = Kind::File;
};

class TreeFile {
 public:
  virtual ~TreeFile() = default;
  virtual std::uint64_t size() const = 0;
  // Reads at most into.size() bytes at `offset`; 0 at the end. Errors: errno codes.
  virtual Result<std::size_t> read_at(std::uint64_t offset, std::span<char> into) = 0;
};

class TreeReader {
 public:
  virtual ~TreeReader() = default;
  // The entries of directory `relative` ("" for the top), links to files listed as files.
  virtual Result<std::vector<TreeEntry>> list(const std::string& relative) = 0;
  // A regular file, links followed. Errors: why it cannot be read (sent in an 'X' record).
  virtual Result<std::unique_ptr<TreeFile>> open(const std::string& relative) = 0;
};

class BatchEncoder {
 public:
  // Files larger than `refer_above` bytes go as 'R' records (0: none). `restart`: files before
  // it are left out, its own file starts at its offset.
  BatchEncoder(TreeReader& reader, std::uint64_t refer_above,
               std::optional<RestartPoint> restart = std::nullopt);

  // Appends records to `out` until it holds at least `want` bytes or the batch has ended (the
  // end record appended). A file that cannot be opened or is not a regular file becomes an 'X'
  // record, a directory that cannot be listed an 'X' record of its own. Returns true once the
  // end record is in `out`. Errors: a read error, or a file that shrank while it was sent (its
  // record cannot be completed, so the transfer fails).
  Result<bool> fill(std::string& out, std::size_t want);

  // Files over the limit go to `handler` instead of into 'R' records: a sender that copies them
  // itself (a gridcp put) need not tell the receiver.
  using ReferHandler = std::function<void(const std::string& path, std::uint64_t size)>;
  void refer_to(ReferHandler handler) { on_refer_ = std::move(handler); }
  // Files that cannot be sent go to `handler` (path, why) instead of into 'X' records.
  using RefuseHandler = std::function<void(const std::string& path, const std::string& why)>;
  void refuse_to(RefuseHandler handler) { on_refuse_ = std::move(handler); }
  // Told of each file whose record is complete in the output (path, size).
  void on_file_sent(ReferHandler handler) { on_sent_ = std::move(handler); }

  std::uint64_t files_sent() const { return files_; }
  std::uint64_t unreadable() const { return unreadable_; }

 private:
  struct Pending {
    std::string path;
    TreeEntry::Kind kind;
  };
  void push_children(const std::string& relative, std::string& out);
  void refuse(const std::string& path, const std::string& why, std::string& out);
  Result<void> start_file(const std::string& path, std::string& out);
  Result<void> continue_file(std::string& out, std::size_t want);
  Result<void> read_into(std::uint64_t from, std::uint64_t to, std::string& out);

  TreeReader& reader_;
  std::uint64_t refer_above_;
  std::optional<RestartPoint> restart_;
  ReferHandler on_refer_;
  ReferHandler on_sent_;
  RefuseHandler on_refuse_;
  std::string file_path_;         // the file being sent
  std::vector<Pending> pending_;  // next entry at the back
  bool started_ = false;
  bool ended_ = false;
  std::unique_ptr<TreeFile> file_;  // the file being sent
  std::uint64_t position_ = 0;
  std::uint64_t end_ = 0;
  Crc32c crc_;
  std::uint64_t files_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t unreadable_ = 0;
};

}  // namespace gridftp::protocol::batch
