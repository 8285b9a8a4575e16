#include "transport/socket_buffer.hpp"

namespace gridftp::transport {

std::string describe_socket_buffers(tcp::socket& socket) {
  boost::system::error_code ec;
  asio::socket_base::receive_buffer_size receive;
  asio::socket_base::send_buffer_size send;
  socket.get_option(receive, ec);
  if (!ec) socket.get_option(send, ec);
  if (ec) return "unknown";
  return "rcvbuf=" + std::to_string(receive.value()) + " sndbuf=" + std::to_string(send.value());
}

}  // namespace gridftp::transport
