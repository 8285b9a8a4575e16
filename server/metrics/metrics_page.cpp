#include "server/metrics/metrics_page.hpp"

#include <chrono>

namespace gridftp::server {

namespace pm = protocol::metrics;

Result<std::shared_ptr<MetricsPage>> MetricsPage::create() {
  auto shared = SharedPage::create("gridftpd-metrics", sizeof(Cells));
  if (!shared) return make_error(shared.error());
  return std::shared_ptr<MetricsPage>(new MetricsPage(std::move(*shared)));
}

Result<std::shared_ptr<MetricsPage>> MetricsPage::attach(int fd) {
  auto shared = SharedPage::attach(fd, sizeof(Cells));
  if (!shared) return make_error(shared.error());
  return std::shared_ptr<MetricsPage>(new MetricsPage(std::move(*shared)));
}

void MetricsPage::add(std::size_t cell, std::uint64_t amount) {
  if (cell < cells_->size()) (*cells_)[cell].fetch_add(amount, std::memory_order_relaxed);
}

std::uint64_t MetricsPage::session_started() {
  return (*cells_)[pm::cell::kSessionsStarted].fetch_add(1, std::memory_order_relaxed);
}

pm::Snapshot MetricsPage::snapshot() const {
  pm::Snapshot out{};
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = (*cells_)[i].load(std::memory_order_relaxed);
  return out;
}

void MetricsPage::login(pm::LoginMethod method, bool ok) {
  add(pm::login_cell(method, ok ? pm::Outcome::Ok : pm::Outcome::Failed));
}

void MetricsPage::transfer(const TransferRecord& record) {
  const auto direction = pm::direction_of(record.command);
  const auto mode = record.network == "udpx" ? pm::DataMode::Udpx
                    : record.mode == 'E'     ? pm::DataMode::ExtendedBlock
                                             : pm::DataMode::Stream;
  const auto level = pm::security_level_of(record.security);
  add(pm::transfer_cell(direction, mode, level, record.ok ? pm::Outcome::Ok : pm::Outcome::Failed));
  add(pm::bytes_cell(direction, mode, level), record.bytes);
  const double seconds = std::chrono::duration<double>(record.duration).count();
  if (record.ok && record.bytes > 0 && seconds > 0) {
    const double per_stream = static_cast<double>(record.bytes) / seconds /
                              static_cast<double>(std::max(1U, record.streams));
    add(pm::throughput_cell(per_stream));
    add(pm::cell::kThroughputSum, static_cast<std::uint64_t>(per_stream));
    add(pm::cell::kThroughputCount);
  }
  if (record.udpx) {
    const auto bytes = static_cast<double>(record.udpx->bytes);
    add(pm::cell::kUdpxExtraBytesSent,
        static_cast<std::uint64_t>(record.udpx->sending_cost * bytes));
    add(pm::cell::kUdpxDuplicateBytes,
        static_cast<std::uint64_t>(record.udpx->receiving_cost * bytes));
    add(pm::cell::kUdpxDroppedDatagrams, record.udpx->dropped);
  }
}

}  // namespace gridftp::server
