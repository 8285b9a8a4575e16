#include "protocol/metrics/metric_cells.hpp"

#include <cstdio>

namespace gridftp::protocol::metrics {
namespace {

constexpr std::array<std::string_view, kLoginMethods> kMethodNames{"anonymous", "password", "gsi"};
constexpr std::array<std::string_view, kOutcomes> kOutcomeNames{"ok", "failed"};
constexpr std::array<std::string_view, kDirections> kDirectionNames{"sent", "received"};
constexpr std::array<std::string_view, kModes> kModeNames{"stream", "extended_block", "udpx"};
constexpr std::array<std::string_view, kLevels> kLevelNames{"none", "authenticated", "integrity",
                                                            "private"};

std::size_t at(auto value) { return static_cast<std::size_t>(value); }

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void sample(std::string& out, std::string_view name, std::string_view labels, std::uint64_t value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  out += std::to_string(value);
  out += '\n';
}

std::string bound_text(double bound) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", bound);
  return text;
}

}  // namespace

std::size_t login_cell(LoginMethod method, Outcome outcome) {
  return cell::kLogins + at(method) * kOutcomes + at(outcome);
}

std::size_t transfer_cell(Direction direction, DataMode mode, SecurityLevel level,
                          Outcome outcome) {
  return cell::kTransfers +
         ((at(direction) * kModes + at(mode)) * kLevels + at(level)) * kOutcomes + at(outcome);
}

std::size_t bytes_cell(Direction direction, DataMode mode, SecurityLevel level) {
  return cell::kBytes + (at(direction) * kModes + at(mode)) * kLevels + at(level);
}

std::size_t throughput_cell(double bytes_per_second) {
  std::size_t bucket = 0;
  while (bucket < kThroughputBuckets.size() && bytes_per_second > kThroughputBuckets[bucket])
    ++bucket;
  return cell::kThroughput + bucket;
}

std::size_t reply_cell(int code) {
  if (code < kFirstReplyCode || code > kLastReplyCode) return cell::kCount;
  return cell::kReplies + static_cast<std::size_t>(code - kFirstReplyCode);
}

SecurityLevel security_level_of(std::string_view label) {
  if (label.find("prot=P") != std::string_view::npos) return SecurityLevel::Private;
  if (label.find("prot=S") != std::string_view::npos) return SecurityLevel::Integrity;
  if (label.find("dcau=A") != std::string_view::npos ||
      label.find("dcau=S") != std::string_view::npos)
    return SecurityLevel::Authenticated;
  return SecurityLevel::None;
}

Direction direction_of(std::string_view command) {
  for (const std::string_view upload : {"STOR", "ESTO", "APPE", "STOU"})
    if (command == upload) return Direction::Received;
  return Direction::Sent;
}

std::string format_exposition(const Snapshot& cells) {
  std::string out;
  const auto started = cells[cell::kSessionsStarted];
  const auto ended = cells[cell::kSessionsEnded];
  family(out, "gridftpd_sessions_started_total", "counter", "Control sessions started.");
  sample(out, "gridftpd_sessions_started_total", "", started);
  family(out, "gridftpd_sessions_active", "gauge", "Control sessions open now.");
  sample(out, "gridftpd_sessions_active", "", started >= ended ? started - ended : 0);

  family(out, "gridftpd_logins_total", "counter", "Login attempts by method and outcome.");
  for (std::size_t m = 0; m < kLoginMethods; ++m)
    for (std::size_t o = 0; o < kOutcomes; ++o)
      sample(out, "gridftpd_logins_total",
             "method=\"" + std::string(kMethodNames[m]) + "\",outcome=\"" +
                 std::string(kOutcomeNames[o]) + "\"",
             cells[login_cell(LoginMethod(m), Outcome(o))]);

  family(out, "gridftpd_transfers_total", "counter",
         "Transfers (files and listings) by direction, data mode, security level and outcome.");
  for (std::size_t d = 0; d < kDirections; ++d)
    for (std::size_t m = 0; m < kModes; ++m)
      for (std::size_t l = 0; l < kLevels; ++l)
        for (std::size_t o = 0; o < kOutcomes; ++o) {
          const auto labels = "direction=\"" + std::string(kDirectionNames[d]) + "\",mode=\"" +
                              std::string(kModeNames[m]) + "\",security=\"" +
                              std::string(kLevelNames[l]) + "\",outcome=\"" +
                              std::string(kOutcomeNames[o]) + "\"";
          sample(out, "gridftpd_transfers_total", labels,
                 cells[transfer_cell(Direction(d), DataMode(m), SecurityLevel(l), Outcome(o))]);
        }

  family(out, "gridftpd_transfer_bytes_total", "counter",
         "Bytes moved by transfers, as the transfer log counts them.");
  for (std::size_t d = 0; d < kDirections; ++d)
    for (std::size_t m = 0; m < kModes; ++m)
      for (std::size_t l = 0; l < kLevels; ++l) {
        const auto labels = "direction=\"" + std::string(kDirectionNames[d]) + "\",mode=\"" +
                            std::string(kModeNames[m]) + "\",security=\"" +
                            std::string(kLevelNames[l]) + "\"";
        sample(out, "gridftpd_transfer_bytes_total", labels,
               cells[bytes_cell(Direction(d), DataMode(m), SecurityLevel(l))]);
      }

  const std::string_view throughput = "gridftpd_stream_throughput_bytes_per_second";
  family(out, throughput, "histogram",
         "Per-stream throughput of finished transfers: bytes / seconds / data streams.");
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b <= kThroughputBuckets.size(); ++b) {
    cumulative += cells[cell::kThroughput + b];
    const auto bound = b < kThroughputBuckets.size() ? bound_text(kThroughputBuckets[b]) : "+Inf";
    sample(out, std::string(throughput) + "_bucket", "le=\"" + bound + "\"", cumulative);
  }
  sample(out, std::string(throughput) + "_sum", "", cells[cell::kThroughputSum]);
  sample(out, std::string(throughput) + "_count", "", cells[cell::kThroughputCount]);

  family(out, "gridftpd_error_replies_total", "counter", "Replies with codes 400-599, by code.");
  for (int code = kFirstReplyCode; code <= kLastReplyCode; ++code) {
    const auto value = cells[reply_cell(code)];
    if (value != 0)  // 200 mostly empty series would drown the rest
      sample(out, "gridftpd_error_replies_total", "code=\"" + std::to_string(code) + "\"", value);
  }

  family(out, "gridftpd_udpx_extra_bytes_sent_total", "counter",
         "UDPX payload bytes sent beyond the file (retransmissions).");
  sample(out, "gridftpd_udpx_extra_bytes_sent_total", "", cells[cell::kUdpxExtraBytesSent]);
  family(out, "gridftpd_udpx_duplicate_bytes_received_total", "counter",
         "UDPX payload bytes received twice.");
  sample(out, "gridftpd_udpx_duplicate_bytes_received_total", "", cells[cell::kUdpxDuplicateBytes]);
  family(out, "gridftpd_udpx_dropped_datagrams_total", "counter",
         "UDPX datagrams refused: damaged, replayed or foreign.");
  sample(out, "gridftpd_udpx_dropped_datagrams_total", "", cells[cell::kUdpxDroppedDatagrams]);
  return out;
}

}  // namespace gridftp::protocol::metrics
