#include "transport/udpx/engine_threads.hpp"

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace gridftp::transport::udpx {
namespace {

struct EngineThread {
  std::thread thread;
  std::shared_ptr<std::atomic<bool>> finished;
};

std::mutex threads_mutex;
std::list<EngineThread> threads;  // guarded by threads_mutex

}  // namespace

void start_engine_thread(std::function<void()> work) {
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const std::lock_guard lock(threads_mutex);
  // Threads that ended are joined here, so the list holds only running ones and a few more.
  for (auto it = threads.begin(); it != threads.end();) {
    if (it->finished->load()) {
      it->thread.join();
      it = threads.erase(it);
    } else {
      ++it;
    }
  }
  threads.push_back(EngineThread{std::thread([work = std::move(work), finished] {
                                   work();
                                   finished->store(true);
                                 }),
                                 finished});
}

void join_engine_threads() {
  std::list<EngineThread> running;
  {
    const std::lock_guard lock(threads_mutex);
    running.swap(threads);
  }
  for (auto& engine : running) engine.thread.join();
}

}  // namespace gridftp::transport::udpx
