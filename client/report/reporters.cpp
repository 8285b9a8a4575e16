#include "client/report/reporters.hpp"

#include <cstdio>

#include <unistd.h>

namespace gridftp::client::report {
namespace {

void write_stream(std::string_view text, std::FILE* stream) {
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);  // a pipe reader (a script reading --json) sees each line as it happens
}

}  // namespace

Reporters::Reporters(const ReportPlan& plan, Clock::time_point run_start)
    : failures_([this](std::string_view text) { print_error(text); }) {
  if (plan.live_display) {
    live_ = std::make_unique<TerminalProgress>(STDERR_FILENO);
    list_.add(*live_);  // first: a finished file leaves the display before its line is printed
  }
  if (plan.lines) {
    lines_ = std::make_unique<LineReport>(plan.line_style,
                                          [this](std::string_view text) { print_out(text); });
    list_.add(*lines_);
  }
  if (plan.json) {
    json_ = std::make_unique<JsonReport>([](std::string_view line) { write_stream(line, stdout); },
                                         run_start);
    list_.add(*json_);
  }
  list_.add(failures_);
}

Reporters::~Reporters() {
  if (live_) {
    live_->stop();
  }
}

void Reporters::print_out(std::string_view text) {
  if (live_) {
    live_->print_above(text, stdout);
    return;
  }
  write_stream(text, stdout);
}

void Reporters::print_error(std::string_view text) {
  if (live_) {
    live_->print_above(text, stderr);
    return;
  }
  write_stream(text, stderr);
}

void Reporters::finish(Clock::time_point now) {
  if (live_) {
    live_->stop();
  }
  if (json_) {
    json_->finish_run(now);
  }
}

}  // namespace gridftp::client::report
