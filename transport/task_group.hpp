// Runs coroutines on other executors (each MODE E stream on its own strand) and lets the owner,
// on its strand, wait until all have finished. Boost 1.74 has no parallel_group, hence this.
#pragma once

#include <memory>
#include <system_error>

#include "protocol/core/result.hpp"
#include "transport/asio.hpp"

namespace gridftp::transport {

class TaskGroup {
 public:
  // `owner` is the strand that calls spawn() and wait().
  explicit TaskGroup(const asio::any_io_executor& owner);

  void spawn(const asio::any_io_executor& executor, awaitable<Result<void>> task);
  // Completes when every spawned task has finished; the first failure, or success.
  awaitable<Result<void>> wait();
  std::size_t running() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace gridftp::transport
