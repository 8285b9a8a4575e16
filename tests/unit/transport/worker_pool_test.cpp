// The pool that seals one stream's records on several threads (transport/worker_pool): every
// job of a run exactly once, run() back only when all are done, callers on many threads at
// once, and no threads at all.
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
  for (const std::size_t count : {0U, 1U, 2U, 7U, 64U}) {
    std::vector<std::atomic<int>> hits(count);
    pool.run(count, [&](std::size_t i) {
      std::this_thread::yield();
      hits[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < count; ++i) CHECK(hits[i].load() == 1);
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
        pool.run(slots.size(), [&](std::size_t i) { slots[i] = static_cast<int>(i) + 1; });
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
