// What the transfer log says about one transfer's data connections (docs/ARCHITECTURE.md,
// "Transfer log"), gathered as each connection finishes: its TLS, its kernel buffers, its peer and
// its retransmissions, plus why the transfer failed beyond its reply code. The session keeps one
// per running transfer and starts a fresh one with each transfer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/logging/transfer_log.hpp"
#include "transport/socket_figures.hpp"

namespace gridftp::server {

class TransferFigures {
 public:
  // One finished TCP data connection: `link` as DataLink::describe() says it. Its buffer figures
  // are listed only when `listed_buffers` (SBUF asked for a size, so the log shows what reached
  // the socket); the first connection with a peer gives the peer and kernel buffer sizes.
  void note_connection(std::string link, const transport::SocketFigures& figures,
                       bool listed_buffers);
  // A data channel with no socket figures (UDPX): only how it was protected and what it did.
  void note_link(std::string link) { links_.push_back(std::move(link)); }

  // Why the transfer failed, beyond its reply code: appended to the reply and the log's error.
  void set_failure_detail(std::string detail) { failure_detail_ = std::move(detail); }
  const std::string& failure_detail() const { return failure_detail_; }

  // The record's data-connection fields. `socket_buffer`: the SBUF size in force (0: none, then
  // the kernel's receive or send buffer, as `received` says, is what Globus logs);
  // `control_peer`: the peer when no data connection told one.
  void fill(TransferRecord& record, std::uint32_t socket_buffer, bool received,
            const std::string& control_peer) const;

 private:
  std::vector<std::string> links_;
  std::vector<std::string> buffers_;
  std::string peer_;
  std::uint32_t send_buffer_ = 0;
  std::uint32_t receive_buffer_ = 0;
  std::vector<std::uint32_t> retransmits_;
  std::string failure_detail_;
};

}  // namespace gridftp::server
