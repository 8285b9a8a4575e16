// Tallies the files of one gridcp run for the final summary (--json's last object). Pure.
#pragma once

#include <cstddef>
#include <cstdint>

#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

struct RunSummary {
  std::size_t files = 0;  // every file that finished: copied, skipped or failed
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::uint64_t bytes = 0;  // moved in this run, failed attempts included
  Clock::duration elapsed{};

  void add(const FileEnd& end);
  // Bytes over the run's elapsed time; 0 for a run that took no measurable time.
  double bytes_per_second() const;
};

}  // namespace gridftp::client::report
