// The per-file lines (line_format) as an observer: written once a file finishes, whole, through
// a writer the caller picks (stdout, or TerminalProgress::print_above while the live display is
// up). Thread-safe; one file's lines never interleave with another's.
#pragma once

#include <functional>
#include <mutex>
#include <string_view>

#include "client/report/file_start_book.hpp"
#include "client/report/line_format.hpp"
#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

class LineReport : public TransferObserver {
 public:
  using Writer = std::function<void(std::string_view text)>;
  LineReport(LineStyle style, Writer write);

  void file_started(const FileStart& start) override;
  void file_progress(std::size_t id, std::uint64_t bytes_so_far) override;
  void file_finished(const FileEnd& end) override;

 private:
  LineStyle style_;
  FileStartBook starts_;
  std::mutex write_mutex_;
  Writer write_;
};

}  // namespace gridftp::client::report
