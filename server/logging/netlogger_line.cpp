#include "server/logging/netlogger_line.hpp"

#include <ctime>

#include <fmt/format.h>

namespace gridftp::server {
namespace {

// A value as Globus writes it, with control characters as %XX so they cannot end the line.
std::string bare_value(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("%{:02X}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string netlogger_time(std::chrono::system_clock::time_point when) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(when.time_since_epoch()).count();
  auto seconds = micros / 1'000'000;
  auto fraction = micros % 1'000'000;
  if (fraction < 0) {  // before 1970: the fraction still counts up from the whole second
    fraction += 1'000'000;
    --seconds;
  }
  const auto whole = static_cast<std::time_t>(seconds);
  std::tm utc{};
  ::gmtime_r(&whole, &utc);
  return fmt::format("{:04}{:02}{:02}{:02}{:02}{:02}.{:06}", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, fraction);
}

std::string format_netlogger_line(const TransferRecord& record,
                                  std::chrono::system_clock::time_point end,
                                  std::string_view host) {
  auto line = fmt::format(
      "DATE={} HOST={} PROG=globus-gridftp-server NL.EVNT=FTP_INFO START={} USER={} FILE={} "
      "BUFFER={} BLOCK={} NBYTES={} VOLUME=/ STREAMS={} STRIPES=1 DEST=[{}] TYPE={} CODE={} "
      "TASKID=none",
      netlogger_time(end), bare_value(host), netlogger_time(record.started_at),
      bare_value(record.user), bare_value(record.file), record.tcp_buffer, record.block_size,
      record.bytes, record.streams, bare_value(record.peer_address), bare_value(record.command),
      record.reply_code);
  if (record.mode == 'E' && !record.retransmits.empty()) {
    line += " retrans=";
    for (std::size_t i = 0; i < record.retransmits.size(); ++i)
      line += (i == 0 ? "" : ",") + std::to_string(record.retransmits[i]);
  }
  return line;
}

}  // namespace gridftp::server
