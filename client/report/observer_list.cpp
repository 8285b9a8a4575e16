#include "client/report/observer_list.hpp"

namespace gridftp::client::report {

void ObserverList::file_started(const FileStart& start) {
  for (auto* observer : observers_) {
    observer->file_started(start);
  }
}

void ObserverList::file_progress(std::size_t id, std::uint64_t bytes_so_far) {
  for (auto* observer : observers_) {
    observer->file_progress(id, bytes_so_far);
  }
}

void ObserverList::file_shape(std::size_t id, const FileShape& shape) {
  for (auto* observer : observers_) {
    observer->file_shape(id, shape);
  }
}

void ObserverList::file_finished(const FileEnd& end) {
  for (auto* observer : observers_) {
    observer->file_finished(end);
  }
}

}  // namespace gridftp::client::report
