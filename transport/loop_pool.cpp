#include "transport/loop_pool.hpp"

#include <algorithm>

namespace gridftp::transport {

LoopPool::LoopPool(unsigned loops) {
  loops = std::max(1U, loops);
  for (unsigned i = 0; i < loops; ++i) {
    loops_.push_back(std::make_unique<EventLoop>(1));
    keep_running_.push_back(asio::make_work_guard(*loops_.back()));
  }
  for (auto& loop : loops_) threads_.emplace_back([&context = *loop] { context.run(); });
}

LoopPool::~LoopPool() {
  stop();
  destroy_pending();
}

asio::io_context::executor_type LoopPool::next() {
  return loops_[next_.fetch_add(1, std::memory_order_relaxed) % loops_.size()]->get_executor();
}

void LoopPool::stop() {
  keep_running_.clear();
  for (auto& loop : loops_) loop->stop();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void LoopPool::destroy_pending() {
  for (auto& loop : loops_) loop->shutdown();
}

}  // namespace gridftp::transport
