// Which reports a gridcp run shows, from its flags and whether stderr is a terminal. Pure, so
// the rules (--json owns stdout, -q silences, the live display only on a terminal) are tested.
#pragma once

#include "client/report/line_format.hpp"

namespace gridftp::client::report {

struct ReportFlags {
  bool json = false;           // --json
  bool quiet = false;          // -q
  bool verbose = false;        // -v
  bool verbose_bytes = false;  // -vb
  bool no_progress = false;    // --no-progress
  bool debug = false;          // -dbg: its dialogue lines on stderr would tear the display
  bool stderr_is_terminal = false;
};

struct ReportPlan {
  bool json = false;          // JSON Lines on stdout, and nothing else there
  bool live_display = false;  // TerminalProgress on stderr
  bool lines = false;         // LineReport on stdout
  LineStyle line_style = LineStyle::Summary;
};

ReportPlan plan_reports(const ReportFlags& flags);

}  // namespace gridftp::client::report
