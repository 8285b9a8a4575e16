#include "client/report/progress_board.hpp"

#include <algorithm>

#include "client/report/eta.hpp"

namespace gridftp::client::report {

ProgressBoard::ProgressBoard(Clock::time_point run_start, Clock::duration rate_window)
    : run_start_(run_start), rate_window_(rate_window), total_rate_(rate_window) {
  total_rate_.add(run_start, 0);
}

void ProgressBoard::start(const FileStart& start, Clock::time_point now) {
  Active active{next_order_++, start, 0, RateEstimator(rate_window_)};
  active.rate.add(now, 0);
  active_.insert_or_assign(start.id, std::move(active));
}

void ProgressBoard::progress(std::size_t id, std::uint64_t bytes_so_far, Clock::time_point now) {
  auto found = active_.find(id);
  if (found == active_.end()) {
    return;
  }
  found->second.bytes = bytes_so_far;
  found->second.rate.add(now, bytes_so_far);
  total_rate_.add(now, total_bytes());
}

void ProgressBoard::reshape(std::size_t id, const FileShape& shape) {
  auto found = active_.find(id);
  if (found == active_.end()) {
    return;
  }
  if (shape.size) {
    found->second.start.size = shape.size;
  }
  found->second.start.streams = shape.streams;
}

void ProgressBoard::finish(const FileEnd& end, Clock::time_point now) {
  auto found = active_.find(end.id);
  if (found != active_.end()) {
    active_.erase(found);
  }
  if (end.result == FileResult::Failed) {
    ++files_failed_;
  } else {
    ++files_done_;
  }
  finished_bytes_ += end.bytes;
  total_rate_.add(now, total_bytes());
}

std::uint64_t ProgressBoard::total_bytes() const {
  std::uint64_t bytes = finished_bytes_;
  for (const auto& [id, active] : active_) {
    bytes += active.bytes;
  }
  return bytes;
}

ProgressSnapshot ProgressBoard::snapshot(Clock::time_point now) {
  ProgressSnapshot snapshot;
  std::vector<const Active*> ordered;
  for (auto& [id, active] : active_) {
    active.rate.add(now, active.bytes);
    ordered.push_back(&active);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const Active* a, const Active* b) { return a->order < b->order; });
  total_rate_.add(now, total_bytes());

  TotalRow& total = snapshot.total;
  total.files_done = files_done_;
  total.files_failed = files_failed_;
  total.files_active = active_.size();
  total.bytes = total_bytes();
  total.bytes_per_second = total_rate_.bytes_per_second();
  total.elapsed = now - run_start_;
  bool sizes_known = true;
  std::uint64_t active_left = 0;
  for (const Active* active : ordered) {
    TransferRow row;
    row.name = display_name(active->start.source);
    row.bytes = active->bytes;
    row.size_bytes = active->start.size;
    row.bytes_per_second = active->rate.bytes_per_second();
    row.remaining = estimate_remaining(row.bytes, row.size_bytes, row.bytes_per_second);
    row.streams = active->start.streams;
    sizes_known = sizes_known && row.size_bytes.has_value();
    if (row.size_bytes && *row.size_bytes > row.bytes) {
      active_left += *row.size_bytes - row.bytes;
    }
    snapshot.active.push_back(std::move(row));
  }
  if (sizes_known) {
    total.size_bytes = total.bytes + active_left;
    total.remaining = estimate_remaining(total.bytes, total.size_bytes, total.bytes_per_second);
  }
  return snapshot;
}

std::string display_name(const std::string& url) {
  const auto end = url.size() > 1 && url.back() == '/' ? url.size() - 1 : url.size();
  const auto slash = url.find_last_of('/', end == 0 ? 0 : end - 1);
  auto name = slash == std::string::npos ? url : url.substr(slash + 1);
  return name.empty() ? url : name;
}

}  // namespace gridftp::client::report
