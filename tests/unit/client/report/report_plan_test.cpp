#include "client/report/report_plan.hpp"

#include <catch2/catch.hpp>

using gridftp::client::report::LineStyle;
using gridftp::client::report::plan_reports;
using gridftp::client::report::ReportFlags;

TEST_CASE("plan_reports shows the live display only on a terminal", "[client][report]") {
  ReportFlags flags;
  CHECK_FALSE(plan_reports(flags).live_display);
  flags.stderr_is_terminal = true;
  const auto plan = plan_reports(flags);
  CHECK(plan.live_display);
  CHECK(plan.lines);
  CHECK_FALSE(plan.json);
  CHECK(plan.line_style == LineStyle::Summary);
}

TEST_CASE("plan_reports: --json owns stdout and has no live display", "[client][report]") {
  ReportFlags flags;
  flags.json = true;
  flags.stderr_is_terminal = true;
  flags.verbose_bytes = true;
  const auto plan = plan_reports(flags);
  CHECK(plan.json);
  CHECK_FALSE(plan.lines);
  CHECK_FALSE(plan.live_display);
}

TEST_CASE("plan_reports: -q, --no-progress and -dbg turn the live display off",
          "[client][report]") {
  for (int which = 0; which < 3; ++which) {
    ReportFlags flags;
    flags.stderr_is_terminal = true;
    flags.quiet = which == 0;
    flags.no_progress = which == 1;
    flags.debug = which == 2;
    CHECK_FALSE(plan_reports(flags).live_display);
    CHECK(plan_reports(flags).lines == !flags.quiet);
  }
}

TEST_CASE("plan_reports picks globus-url-copy's -v and -vb lines", "[client][report]") {
  ReportFlags flags;
  flags.verbose = true;
  CHECK(plan_reports(flags).line_style == LineStyle::Verbose);
  flags.verbose_bytes = true;
  CHECK(plan_reports(flags).line_style == LineStyle::VerboseBytes);
}
