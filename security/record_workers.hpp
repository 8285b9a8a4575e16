// Threads that a TLS 1.3 record layer may seal and open one stream's records on, so that one stream
// is not held to one core (docs/ARCHITECTURE.md, "Secure data streams"). Records are independent
// once their numbers are known, so a run of them can be split; the record layer stays pure and
// sees only this interface, the threads live at the edge (transport/worker_pool).
#pragma once

#include <cstddef>
#include <functional>

namespace gridftp::security {

class RecordWorkers {
 public:
  virtual ~RecordWorkers() = default;
  // How many jobs may run at once, the caller's own thread included (1: no help).
  virtual std::size_t width() const = 0;
  // Runs job(0) ... job(count - 1), some on other threads, the caller's among them, and returns
  // once every one has finished. Jobs must not throw.
  virtual void run(std::size_t count, const std::function<void(std::size_t)>& job) = 0;
};

}  // namespace gridftp::security
