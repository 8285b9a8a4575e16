#include "client/report/file_start_book.hpp"

namespace gridftp::client::report {

void FileStartBook::remember(const FileStart& start) {
  std::lock_guard lock(mutex_);
  starts_.insert_or_assign(start.id, start);
}

FileStart FileStartBook::take(std::size_t id) {
  std::lock_guard lock(mutex_);
  auto found = starts_.find(id);
  if (found == starts_.end()) {
    FileStart unknown;
    unknown.id = id;
    return unknown;
  }
  FileStart start = std::move(found->second);
  starts_.erase(found);
  return start;
}

}  // namespace gridftp::client::report
