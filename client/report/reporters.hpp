// The reports of one gridcp run, built from a ReportPlan: the live display on stderr, per-file
// lines or JSON Lines on stdout. main() hands observer() to the CopyJob, prints its errors through
// print_error() (so they land above the live display) and calls finish() once at the end.
#pragma once

#include <memory>
#include <string_view>

#include "client/report/failure_lines.hpp"
#include "client/report/json_report.hpp"
#include "client/report/line_report.hpp"
#include "client/report/observer_list.hpp"
#include "client/report/report_plan.hpp"
#include "client/report/terminal_progress.hpp"

namespace gridftp::client::report {

class Reporters {
 public:
  // The live display draws on stderr (fd 2); lines and JSON go to stdout.
  Reporters(const ReportPlan& plan, Clock::time_point run_start);
  Reporters(const Reporters&) = delete;
  Reporters& operator=(const Reporters&) = delete;
  ~Reporters();

  // Every report that wants events, failure lines on stderr always among them.
  TransferObserver* observer() { return &list_; }
  // Writes `text` on stderr, above the live display when it is up.
  void print_error(std::string_view text);
  // Takes the live display down and writes the JSON summary. Call once, after the last file.
  void finish(Clock::time_point now);

 private:
  void print_out(std::string_view text);

  std::unique_ptr<TerminalProgress> live_;
  std::unique_ptr<LineReport> lines_;
  std::unique_ptr<JsonReport> json_;
  FailureLines failures_;
  ObserverList list_;
};

}  // namespace gridftp::client::report
