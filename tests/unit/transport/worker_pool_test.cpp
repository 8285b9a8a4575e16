// The pool that seals one stream's records on several threads (transport/worker_pool): every
// job of a run exactly once, run() back only when all are done, each thread of a run in a lane of
// its own below the width, taking its jobs in increasing order, callers on many threads at once,
// and no threads at all.
#include "transport/worker_pool.hpp"

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::transport::WorkerPool;

TEST_CASE("A worker pool runs every job of a run once and returns when all are done",
          "[worker_pool]") {
  const std::size_t threads = GENERATE(0U, 1U, 3U);
  CAPTURE(threads);
  WorkerPool pool(threads);
  CHECK(pool.width() == threads + 1);
  for (const std::size_t count : {0U, 1U, 2U, 7U, 64U, 1000U}) {
    std::vector<std::atomic<int>> hits(count);
    // Per lane: the thread seen in it, and the last job it took. A lane is one thread's alone.
    std::vector<std::atomic<std::thread::id>> lane_thread(pool.width());
    std::vector<std::size_t> lane_last(pool.width(), 0);
    std::vector<int> lane_jobs(pool.width(), 0);
    std::atomic<int> misplaced{0};
    pool.run(count, [&](std::size_t i, std::size_t lane) {
      std::this_thread::yield();
      hits[i].fetch_add(1);
      if (lane >= pool.width()) {
        misplaced.fetch_add(1);
        return;
      }
      std::thread::id unset{};
      if (!lane_thread[lane].compare_exchange_strong(unset, std::this_thread::get_id()) &&
          unset != std::this_thread::get_id()) {
        misplaced.fetch_add(1);  // two threads in one lane
      }
      if (lane_jobs[lane]++ > 0 && i <= lane_last[lane]) misplaced.fetch_add(1);
      lane_last[lane] = i;
    });
    for (std::size_t i = 0; i < count; ++i) CHECK(hits[i].load() == 1);
    CHECK(misplaced.load() == 0);
    // The caller always works in lane 0 when it takes a job at all.
    if (count > 0 && lane_jobs[0] > 0) CHECK(lane_thread[0].load() == std::this_thread::get_id());
  }
}

TEST_CASE("Runs from several threads share one pool", "[worker_pool]") {
  WorkerPool pool(2);
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int caller = 0; caller < 4; ++caller) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        std::vector<int> slots(9, 0);
        pool.run(slots.size(),
                 [&](std::size_t i, std::size_t) { slots[i] = static_cast<int>(i) + 1; });
        long sum = 0;
        for (const int slot : slots) sum += slot;
        total.fetch_add(sum);
      }
    });
  }
  for (auto& caller : callers) caller.join();
  CHECK(total.load() == 4L * 200 * 45);
}

TEST_CASE("The process's record pool is sized by GRIDFTP_RECORD_THREADS or the cores",
          "[worker_pool]") {
  auto& pool = WorkerPool::for_records();
  CHECK(&pool == &WorkerPool::for_records());
  CHECK(pool.width() == WorkerPool::record_helpers() + 1);
  // NOLINTBEGIN(concurrency-mt-unsafe): this test alone touches the variable
  ::setenv("GRIDFTP_RECORD_THREADS", "3", 1);
  CHECK(WorkerPool::record_helpers() == 3);
  ::setenv("GRIDFTP_RECORD_THREADS", "many", 1);
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  CHECK(WorkerPool::record_helpers() == (cores >= 4 ? cores / 2 - 1 : 0));
  ::unsetenv("GRIDFTP_RECORD_THREADS");
  // NOLINTEND(concurrency-mt-unsafe)
}
