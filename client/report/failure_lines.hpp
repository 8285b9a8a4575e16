// One "gridcp: error: ..." line on stderr for each file that failed, whatever else is shown
// (--json, -q and the live display included): the copy engine reports failures only as events,
// and a failure must never pass silently.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

class FailureLines : public TransferObserver {
 public:
  using Print = std::function<void(std::string_view text)>;
  explicit FailureLines(Print print) : print_(std::move(print)) {}

  void file_started(const FileStart&) override {}
  void file_progress(std::size_t, std::uint64_t) override {}
  void file_finished(const FileEnd& end) override {
    if (end.result == FileResult::Failed) print_("gridcp: error: " + end.error + '\n');
  }

 private:
  Print print_;  // thread-safe (Reporters::print_error)
};

}  // namespace gridftp::client::report
