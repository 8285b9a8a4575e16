#include "server/data/udpx_channel.hpp"

#include "server/data/passive_ports.hpp"

namespace gridftp::server {

using transport::udpx::udp;

void UdpxChannel::disable() {
  stack_.reset();
  socket_.reset();
  active_peer_.reset();
}

Result<udp::endpoint> UdpxChannel::listen_passive(const transport::asio::any_io_executor& io,
                                                  const transport::asio::ip::address& address,
                                                  const ListenConfig& listen) {
  socket_.reset();
  active_peer_.reset();
  const PassivePortWalk ports(listen);
  std::error_code last;
  for (unsigned i = 0; i < ports.size(); ++i) {
    auto socket = transport::udpx::DatagramSocket::open(io, udp::endpoint(address, ports[i]));
    if (!socket) {
      last = socket.error();
      continue;
    }
    const auto bound = socket->local_endpoint();
    socket_.emplace(std::move(*socket));
    return bound;
  }
  return make_error(last ? last : std::make_error_code(std::errc::address_in_use));
}

Result<transport::udpx::DatagramSocket> UdpxChannel::take_socket(
    const transport::asio::any_io_executor& io) {
  if (socket_) {
    auto socket = std::move(*socket_);
    socket_.reset();
    return socket;
  }
  const auto any = active_peer_ && active_peer_->address().is_v6() ? udp::endpoint(udp::v6(), 0)
                                                                   : udp::endpoint(udp::v4(), 0);
  active_peer_.reset();
  return transport::udpx::DatagramSocket::open(io, any);
}

}  // namespace gridftp::server
