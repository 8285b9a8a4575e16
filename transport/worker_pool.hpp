// Threads that help one data stream seal and open its TLS records (security/record_workers), so
// that an encrypted stream is not held to one core (docs/ARCHITECTURE.md, "Secure data streams").
// The caller takes jobs too, one at a time like the helpers: when every helper is busy, or slow to
// wake, it does them all itself, and at the end it waits only for the jobs helpers have begun.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "security/record_workers.hpp"

namespace gridftp::transport {

class WorkerPool final : public security::RecordWorkers {
 public:
  // `threads` helpers beside the callers' own threads (0: every job on the caller's thread).
  explicit WorkerPool(std::size_t threads);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t width() const override { return threads_.size() + 1; }
  void run(std::size_t count,
           const std::function<void(std::size_t job, std::size_t lane)>& job) override;

  // The process's pool for sealing and opening records, of record_helpers() threads, started on
  // first use (and again in a forked child, whose parent's threads are gone).
  static WorkerPool& for_records();
  // GRIDFTP_RECORD_THREADS when set (0 to kMaxRecordHelpers), else half the cores less one on
  // machines of 4 cores or more, and none below.
  static std::size_t record_helpers();
  static constexpr std::size_t kMaxRecordHelpers = 256;

 private:
  struct Run;
  void serve();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::size_t> idle_{0};       // helpers waiting for a run
  std::deque<std::shared_ptr<Run>> runs_;  // runs with jobs not yet taken
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace gridftp::transport
