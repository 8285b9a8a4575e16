#include "client/plain_observer.hpp"

#include <cstdio>
#include <iostream>

namespace gridftp::client {

void PlainObserver::file_started(const FileStart& start) {
  std::lock_guard lock(mutex_);
  in_flight_.insert_or_assign(start.id, start);
}

void PlainObserver::file_progress(std::size_t /*id*/, std::uint64_t bytes_so_far) {
  if (!output_.verbose_bytes || output_.quiet) {
    return;
  }
  std::lock_guard lock(mutex_);
  std::printf("%14llu bytes\r", static_cast<unsigned long long>(bytes_so_far));
  std::fflush(stdout);
}

void PlainObserver::file_finished(const FileEnd& end) {
  std::lock_guard lock(mutex_);
  const auto found = in_flight_.find(end.id);
  if (found == in_flight_.end()) {
    return;
  }
  const FileStart start = std::move(found->second);
  in_flight_.erase(found);
  if (end.result == FileResult::Failed) {
    std::cout << std::flush;
    std::cerr << "gridcp: error: " << end.error << '\n';
    return;
  }
  if (end.result == FileResult::Skipped || output_.quiet) {
    return;
  }
  if (output_.verbose || output_.verbose_bytes) {
    std::cout << "Source: " << start.source << "\nDest:   " << start.dest << '\n';
  }
  if (output_.verbose_bytes) {
    const double seconds = std::chrono::duration<double>(end.elapsed).count();
    const double megabytes_per_second =
        seconds > 0 ? static_cast<double>(end.bytes) / seconds / 1e6 : 0.0;
    std::printf("%12llu bytes %10.2f MB/sec avg\n", static_cast<unsigned long long>(end.bytes),
                megabytes_per_second);
  }
  std::cout << std::flush;
}

}  // namespace gridftp::client
