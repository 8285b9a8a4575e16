#include "transport/socket_figures.hpp"

#include <netinet/tcp.h>
#include <sys/socket.h>

#include "transport/peer_address.hpp"
#include "transport/socket_buffer.hpp"

namespace gridftp::transport {

SocketFigures read_socket_figures(tcp::socket& socket) {
  SocketFigures figures;
  if (!socket.is_open()) return figures;
  figures.peer = peer_address_text(socket);
  figures.buffers = describe_socket_buffers(socket);
  const int fd = socket.native_handle();
  int bytes = 0;
  socklen_t size = sizeof(bytes);
  if (::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, &size) == 0 && bytes > 0)
    figures.send_buffer = static_cast<std::uint32_t>(bytes);
  size = sizeof(bytes);
  if (::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, &size) == 0 && bytes > 0)
    figures.receive_buffer = static_cast<std::uint32_t>(bytes);
  tcp_info info{};
  socklen_t info_size = sizeof(info);
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &info_size) == 0)
    figures.retransmits = info.tcpi_total_retrans;
  return figures;
}

}  // namespace gridftp::transport
