// An io_context whose owner can destroy what is still queued on it (execution_context::shutdown)
// before the objects those handlers refer to are gone. A queued coroutine may own a control
// session, and a session's destructor reaches into the server's shared services; destroying the
// queue only with the io_context itself would run those destructors after the services died.
#pragma once

#include "transport/asio.hpp"

namespace gridftp::transport {

class EventLoop : public asio::io_context {
 public:
  EventLoop() = default;
  explicit EventLoop(int concurrency_hint) : asio::io_context(concurrency_hint) {}
  // Destroys every handler still queued; the loop must not be running.
  using asio::io_context::shutdown;
};

}  // namespace gridftp::transport
