// The transfer log: one line per finished (or failed) transfer, written through its own spdlog
// logger with pattern "%v": a JSON object (schema in docs/ARCHITECTURE.md) or Globus's NetLogger
// line (server/logging/netlogger_line.hpp), as [logging] transfer_log_format says.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/udpx/transfer_figures.hpp"

namespace spdlog {
class logger;
}

namespace gridftp::server {

struct TransferRecord {
  std::uint64_t session_id = 0;
  std::string user;
  std::string command;  // RETR, STOR, APPE, LIST, MLSD, NLST, ...
  std::string path;
  std::uint64_t bytes = 0;
  unsigned streams = 1;
  char mode = 'S';
  std::string security = "none";  // "dcau=A prot=P", "ftps prot=P", or "none"
  std::string stream_tls;  // per data connection: "TLSv1.3 TLS_AES_256_GCM_SHA384", "clear", ...
  // SBUF (or listen.data_socket_buffer) in force, 0 for none; then per data connection the
  // sizes its socket had at the end: "rcvbuf=65536 sndbuf=65536".
  std::uint32_t socket_buffer = 0;
  std::string socket_buffers;
  std::chrono::steady_clock::duration duration{};
  bool ok = false;
  std::string error;
  std::string network = "tcp";  // the data channel: tcp or udpx (SITE SETNETSTACK)
  std::optional<protocol::udpx::TransferFigures> udpx;  // its figures (docs/UDPX.md §8)

  // What the NetLogger line carries beyond the above.
  std::chrono::system_clock::time_point started_at{};  // wall clock at the transfer's start
  unsigned reply_code = 0;                             // of the final reply: 226, 426, 550, ...
  std::string file;          // the path in the file system (the root joined with `path`)
  std::string peer_address;  // the data connections' peer (the control peer when none opened)
  // SBUF when the client set one, else the kernel's buffer of the first data connection (send
  // buffer for a send, receive buffer for a receive); 0 when unknown.
  std::uint64_t tcp_buffer = 0;
  std::uint64_t block_size = 0;  // the size the server reads and writes the file in
  // MODE E: TCP retransmissions of each data connection (Linux's tcpi_total_retrans).
  std::vector<std::uint32_t> retransmits;
};

enum class TransferLogFormat { Json, NetLogger };

std::string format_transfer_record(const TransferRecord& record,
                                   std::chrono::system_clock::time_point now);

class TransferLog {
 public:
  // A null logger disables the log. `host` is the HOST of NetLogger lines.
  explicit TransferLog(std::shared_ptr<spdlog::logger> logger,
                       TransferLogFormat format = TransferLogFormat::Json, std::string host = "")
      : logger_(std::move(logger)), format_(format), host_(std::move(host)) {}
  void write(const TransferRecord& record) const;

 private:
  std::shared_ptr<spdlog::logger> logger_;
  TransferLogFormat format_;
  std::string host_;
};

}  // namespace gridftp::server
