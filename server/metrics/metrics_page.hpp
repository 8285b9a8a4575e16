// The server's metrics counters (protocol/metrics/metric_cells) in a page shared with its session
// processes (server/process/shared_page), so a process-per-session server still has one set of
// counters for its endpoint to show. Recording is a relaxed atomic add: counters, not a
// consistent snapshot, which is what Prometheus expects.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "protocol/metrics/metric_cells.hpp"
#include "protocol/udpx/transfer_figures.hpp"
#include "server/logging/transfer_log.hpp"
#include "server/process/shared_page.hpp"

namespace gridftp::server {

class MetricsPage {
 public:
  static Result<std::shared_ptr<MetricsPage>> create();
  static Result<std::shared_ptr<MetricsPage>> attach(int fd);

  int fd() const { return shared_.fd(); }
  void add(std::size_t cell, std::uint64_t amount = 1);
  protocol::metrics::Snapshot snapshot() const;

  // Counts the session and returns how many started before it, over every session process:
  // a frontend's sessions take their movers in this turn (docs/STRIPING.md).
  std::uint64_t session_started();
  void session_ended() { add(protocol::metrics::cell::kSessionsEnded); }
  void login(protocol::metrics::LoginMethod method, bool ok);
  void reply(int code) { add(protocol::metrics::reply_cell(code)); }
  // One transfer-log record: counts, bytes, per-stream throughput and UDPX figures.
  void transfer(const TransferRecord& record);

 private:
  using Cells = std::array<std::atomic<std::uint64_t>, protocol::metrics::cell::kCount>;
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
                "counters are shared between processes");
  explicit MetricsPage(SharedPage shared)
      : shared_(std::move(shared)), cells_(static_cast<Cells*>(shared_.data())) {}

  SharedPage shared_;
  Cells* cells_;
};

}  // namespace gridftp::server
