#include "transport/worker_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include <unistd.h>

namespace gridftp::transport {

// One call of run(): jobs are taken by number, by the caller and by whichever workers come.
struct WorkerPool::Run {
  Run(const std::function<void(std::size_t, std::size_t)>& job_in, std::size_t count_in)
      : job(job_in), count(count_in) {}

  // Takes and does jobs, in increasing order, until none is left; `lane` is 0 for the caller and
  // the next free one for a helper.
  void work(std::size_t lane) {
    for (std::size_t index = next.fetch_add(1); index < count; index = next.fetch_add(1)) {
      job(index, lane);  // `job` lives on the caller's stack, which waits for every taken job
      if (done.fetch_add(1) + 1 == count) done.notify_all();
    }
  }
  std::size_t join() { return helper_lanes.fetch_add(1) + 1; }
  bool taken() const { return next.load() >= count; }
  void wait() {
    for (std::size_t seen = done.load(); seen < count; seen = done.load()) done.wait(seen);
  }

  const std::function<void(std::size_t, std::size_t)>& job;
  const std::size_t count;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  // Helpers that joined: a helper joins a run once, so lanes stay below the pool's width.
  std::atomic<std::size_t> helper_lanes{0};
};

WorkerPool::WorkerPool(std::size_t threads) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { serve(); });
}

WorkerPool::~WorkerPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void WorkerPool::run(std::size_t count, const std::function<void(std::size_t, std::size_t)>& job) {
  if (count == 0) return;
  // Only where a helper is waiting: when all are busy (other streams' runs) a hand-off would only
  // add a wake-up and a lock to what the caller does anyway.
  if (threads_.empty() || count == 1 || idle_.load(std::memory_order_relaxed) == 0) {
    for (std::size_t i = 0; i < count; ++i) job(i, 0);
    return;
  }
  auto run = std::make_shared<Run>(job, count);
  {
    const std::lock_guard lock(mutex_);
    runs_.push_back(run);
  }
  // The caller takes a job too, so count - 1 helpers at most have something to do.
  for (std::size_t i = 0; i < std::min(count - 1, threads_.size()); ++i) wake_.notify_one();
  run->work(0);
  {
    const std::lock_guard lock(mutex_);
    std::erase(runs_, run);
  }
  run->wait();
}

void WorkerPool::serve() {
  for (;;) {
    std::shared_ptr<Run> run;
    {
      std::unique_lock lock(mutex_);
      idle_.fetch_add(1, std::memory_order_relaxed);
      wake_.wait(lock, [this] {
        return stopping_ || std::any_of(runs_.begin(), runs_.end(),
                                        [](const auto& waiting) { return !waiting->taken(); });
      });
      idle_.fetch_sub(1, std::memory_order_relaxed);
      if (stopping_) return;
      for (const auto& waiting : runs_) {
        if (!waiting->taken()) {
          run = waiting;
          break;
        }
      }
    }
    // Callers take jobs without the lock: the run that woke us may be taken already.
    if (run) run->work(run->join());
  }
}

std::size_t WorkerPool::record_helpers() {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read once, nobody sets the environment
  if (const char* configured = std::getenv("GRIDFTP_RECORD_THREADS"); configured != nullptr) {
    char* end = nullptr;
    const unsigned long helpers = std::strtoul(configured, &end, 10);
    if (end != configured && *end == '\0' && helpers <= kMaxRecordHelpers) return helpers;
  }
  // Splitting a stream pays only where cores are idle beside it: on 2 cores the other core is
  // busy with the receiving end or another stream, and the hand-offs cost more than they save
  // (bench/README.md, "Sealing one stream on several cores").
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  return cores >= 4 ? cores / 2 - 1 : 0;
}

WorkerPool& WorkerPool::for_records() {
  static std::mutex creation;
  static WorkerPool* pool = nullptr;
  static pid_t owner = 0;
  const std::lock_guard lock(creation);
  if (pool == nullptr || owner != ::getpid()) {
    // Never destroyed: data loops may still seal while the process exits. A forked child's copy
    // has no threads, and is left as it is.
    pool = new WorkerPool(record_helpers());
    owner = ::getpid();
  }
  return *pool;
}

}  // namespace gridftp::transport
