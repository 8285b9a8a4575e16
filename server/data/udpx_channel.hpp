// A session's UDPX data channel (docs/UDPX.md §7, §8): chosen by SITE SETNETSTACK udpx, it
// replaces TCP data connections for RETR, STOR, ERET and ESTO. PASV/EPSV bind a UDP socket
// (the 227/229 reply carries its port, as Globus's UDT driver does); PORT/EPRT name the peer's.
// The side that was given PORT is the active side: it starts the key exchange as the TLS
// client, as the connecting side of a TCP DCAU connection does.
#pragma once

#include <memory>
#include <optional>

#include "protocol/control/net_stack.hpp"
#include "protocol/core/result.hpp"
#include "server/config/server_config.hpp"
#include "transport/udpx/udpx_transfer.hpp"

namespace gridftp::server {

class UdpxChannel {
 public:
  bool enabled() const { return stack_.has_value(); }
  void enable(protocol::control::NetStack stack) { stack_ = stack; }
  void disable();
  const protocol::control::NetStack& stack() const { return *stack_; }

  // Binds a UDP socket on `address` within the passive port range. Errors: bind's.
  Result<transport::udpx::udp::endpoint> listen_passive(const transport::asio::any_io_executor& io,
                                                        const transport::asio::ip::address& address,
                                                        const ListenConfig& listen);
  // The peer's UDP address (PORT/EPRT): we start the handshake.
  void set_active(const transport::udpx::udp::endpoint& peer) {
    socket_.reset();
    active_peer_ = peer;
  }
  bool is_configured() const { return socket_.has_value() || active_peer_.has_value(); }
  bool is_active() const { return active_peer_.has_value(); }
  const std::optional<transport::udpx::udp::endpoint>& active_peer() const { return active_peer_; }
  // The socket for the next transfer: the passive one, or a new one for the active side.
  // The setup is consumed, as a TCP data channel's is. Errors: socket()/bind()'s.
  Result<transport::udpx::DatagramSocket> take_socket(const transport::asio::any_io_executor& io);

  // The running transfer's live figures (SITE UDPX RATE, SITE UDPX STAT), and the last report.
  std::shared_ptr<transport::udpx::UdpxLive> live;
  std::optional<transport::udpx::UdpxTransferReport> last_report;

 private:
  std::optional<protocol::control::NetStack> stack_;
  std::optional<transport::udpx::DatagramSocket> socket_;
  std::optional<transport::udpx::udp::endpoint> active_peer_;
};

}  // namespace gridftp::server
