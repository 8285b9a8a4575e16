#include "server/session/transfer_figures.hpp"

namespace gridftp::server {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

void TransferFigures::note_connection(std::string link, const transport::SocketFigures& figures,
                                      bool listed_buffers) {
  links_.push_back(std::move(link));
  if (listed_buffers) buffers_.push_back(figures.buffers);
  if (peer_.empty() && !figures.peer.empty()) {
    peer_ = figures.peer;
    // The figures Linux reports (twice what was set), as Globus logs them.
    send_buffer_ = figures.send_buffer;
    receive_buffer_ = figures.receive_buffer;
  }
  if (figures.retransmits) retransmits_.push_back(*figures.retransmits);
}

void TransferFigures::fill(TransferRecord& record, std::uint32_t socket_buffer, bool received,
                           const std::string& control_peer) const {
  record.stream_tls = joined(links_);
  record.socket_buffer = socket_buffer;
  record.socket_buffers = joined(buffers_);
  if (!failure_detail_.empty()) record.error += ": " + failure_detail_;
  record.peer_address = peer_.empty() ? control_peer : peer_;
  record.tcp_buffer = socket_buffer != 0 ? socket_buffer
                      : received         ? receive_buffer_
                                         : send_buffer_;
  record.retransmits = retransmits_;
}

}  // namespace gridftp::server
