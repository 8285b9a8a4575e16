// Passes each event to several observers in order (e.g. the live display, then the per-file
// lines that it prints above itself). Holds no lock of its own: each observer is thread-safe.
#pragma once

#include <vector>

#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

class ObserverList : public TransferObserver {
 public:
  // `observer` must outlive the list.
  void add(TransferObserver& observer) { observers_.push_back(&observer); }
  bool empty() const { return observers_.empty(); }

  void file_started(const FileStart& start) override;
  void file_progress(std::size_t id, std::uint64_t bytes_so_far) override;
  void file_shape(std::size_t id, const FileShape& shape) override;
  void file_finished(const FileEnd& end) override;

 private:
  std::vector<TransferObserver*> observers_;  // fixed before the engine starts
};

}  // namespace gridftp::client::report
