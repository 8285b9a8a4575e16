// A watchdog for Boost 1.74, which has no per-operation cancellation: start_watch() runs beside
// the operations it guards; push the expiry forward before each wait, and on expiry it calls the
// action (typically closing the socket, which fails the pending operation).
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "transport/asio.hpp"

namespace gridftp::transport {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Deadline(const asio::any_io_executor& executor) : timer_(executor) {}

  void expires_after(Clock::duration duration) { expiry_ = Clock::now() + duration; }
  void expires_never() { expiry_ = Clock::time_point::max(); }
  // Ends the watch without running the action.
  void stop();
  bool expired() const { return expired_; }

  // Spawns the watch on the deadline's executor. The watch owns a reference, so the caller may
  // drop its pointer at any time after stop().
  friend void start_watch(const std::shared_ptr<Deadline>& deadline,
                          std::function<void()> on_expiry);

 private:
  static awaitable<void> watch(std::shared_ptr<Deadline> self, std::function<void()> on_expiry);

  asio::steady_timer timer_;
  Clock::time_point expiry_ = Clock::time_point::max();
  bool stopped_ = false;
  bool expired_ = false;
};

void start_watch(const std::shared_ptr<Deadline>& deadline, std::function<void()> on_expiry);

}  // namespace gridftp::transport
