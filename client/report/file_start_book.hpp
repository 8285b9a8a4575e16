// Remembers each file's FileStart until it finishes, so that reports written at the end (which
// see only a FileEnd) can name the file. Thread-safe: the engine reports from several threads.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

class FileStartBook {
 public:
  void remember(const FileStart& start);
  // The start recorded for end.id, removed from the book; a default one carrying the id when
  // the engine never announced the file.
  FileStart take(std::size_t id);

 private:
  std::mutex mutex_;
  std::map<std::size_t, FileStart> starts_;
};

}  // namespace gridftp::client::report
