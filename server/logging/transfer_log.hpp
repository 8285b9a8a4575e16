// The transfer log: one JSON object per finished (or failed) transfer, written through its own
// spdlog logger with pattern "%v". The schema is in docs/ARCHITECTURE.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

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
};

std::string format_transfer_record(const TransferRecord& record,
                                   std::chrono::system_clock::time_point now);

class TransferLog {
 public:
  // A null logger disables the log.
  explicit TransferLog(std::shared_ptr<spdlog::logger> logger) : logger_(std::move(logger)) {}
  void write(const TransferRecord& record) const;

 private:
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace gridftp::server
