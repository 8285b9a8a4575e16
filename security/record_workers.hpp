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
  // How many threads may work on one run at once, the caller's own included (1: no help).
  virtual std::size_t width() const = 0;
  // Runs job(0, lane) ... job(count - 1, lane) and returns once every one has finished. Jobs are
  // small (a record or two) and taken one at a time by whichever thread is free, the caller's
  // among them, so a run never waits long on a helper that the scheduler put behind other work.
  // `lane` (below width()) names the thread within this run, so that each thread may keep its own
  // state, such as a copy of the key; one lane's jobs come in increasing order. Jobs must not
  // throw.
  virtual void run(std::size_t count,
                   const std::function<void(std::size_t job, std::size_t lane)>& job) = 0;
};

}  // namespace gridftp::security
