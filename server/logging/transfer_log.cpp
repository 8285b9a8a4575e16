#include "server/logging/transfer_log.hpp"

#include <fmt/chrono.h>
#include <spdlog/spdlog.h>

#include "protocol/core/json.hpp"
#include "server/logging/netlogger_line.hpp"

namespace gridftp::server {

std::string format_transfer_record(const TransferRecord& record,
                                   std::chrono::system_clock::time_point now) {
  const double seconds = std::chrono::duration<double>(record.duration).count();
  const double rate = seconds > 0 ? static_cast<double>(record.bytes) / seconds : 0.0;
  const auto millis = std::chrono::time_point_cast<std::chrono::milliseconds>(now);
  JsonObjectWriter json;
  json.add("time", fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", millis))
      .add("session", record.session_id)
      .add("user", record.user)
      .add("command", record.command)
      .add("path", record.path)
      .add("bytes", record.bytes)
      .add("streams", static_cast<std::uint64_t>(record.streams))
      .add("mode", std::string(1, record.mode))
      .add("duration_seconds", seconds)
      .add("rate_bytes_per_second", rate)
      .add("security", record.security)
      .add("stream_tls", record.stream_tls)
      .add("network", record.network)
      .add("result", record.ok ? "ok" : "failed");
  if (record.socket_buffer != 0) {
    json.add("socket_buffer", std::uint64_t{record.socket_buffer})
        .add("socket_buffers", record.socket_buffers);
  }
  if (!record.ok) json.add("error", record.error);
  if (record.udpx) protocol::udpx::add_json_fields(json, *record.udpx);
  return json.str();
}

void TransferLog::write(const TransferRecord& record) const {
  if (!logger_) return;
  const auto now = std::chrono::system_clock::now();
  if (format_ == TransferLogFormat::NetLogger) {
    logger_->info("{}", format_netlogger_line(record, now, host_));
  } else {
    logger_->info("{}", format_transfer_record(record, now));
  }
  logger_->flush();
}

}  // namespace gridftp::server
