#include "client/report/report_plan.hpp"

namespace gridftp::client::report {

ReportPlan plan_reports(const ReportFlags& flags) {
  ReportPlan plan;
  plan.json = flags.json;
  plan.lines = !flags.json && !flags.quiet;
  plan.live_display =
      flags.stderr_is_terminal && !flags.json && !flags.quiet && !flags.no_progress && !flags.debug;
  if (flags.verbose_bytes) {
    plan.line_style = LineStyle::VerboseBytes;
  } else if (flags.verbose) {
    plan.line_style = LineStyle::Verbose;
  }
  return plan;
}

}  // namespace gridftp::client::report
