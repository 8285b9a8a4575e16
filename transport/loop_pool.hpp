// Event loops for data connections, one thread each: every data stream is pinned to one loop,
// so its TLS records are sealed and opened on one core from the first byte to the last, with no
// hand-off between threads per read or write. Streams of one transfer go to different loops
// (round robin), which is what spreads parallel streams' crypto over the cores.
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "transport/asio.hpp"
#include "transport/event_loop.hpp"

namespace gridftp::transport {

class LoopPool {
 public:
  explicit LoopPool(unsigned loops);
  ~LoopPool();
  LoopPool(const LoopPool&) = delete;
  LoopPool& operator=(const LoopPool&) = delete;

  // The loop for the next data stream.
  asio::io_context::executor_type next();
  std::size_t size() const { return loops_.size(); }

  // Ends the loops' threads; pending work is abandoned.
  void stop();
  // After stop(): destroys what is still queued on the loops. Queued coroutines may hold
  // objects that live on other io_contexts (a session's control socket), so the owner calls
  // this while those still exist, and before they are destroyed.
  void destroy_pending();

 private:
  std::vector<std::unique_ptr<EventLoop>> loops_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running_;
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> next_{0};
};

}  // namespace gridftp::transport
