// The TCP buffer sizes of data sockets (SBUF, globus-url-copy's -tcp-bs): gridftpd sets them on
// its data sockets and listeners, gridcp on its own, through the same calls.
#pragma once

#include <cstdint>
#include <string>

#include "transport/asio.hpp"

namespace gridftp::transport {

// SO_SNDBUF and SO_RCVBUF of `socket` (a socket or an acceptor, whose accepted sockets inherit
// them) to `bytes`; 0 leaves the kernel's autotuning alone. Best effort: the kernel clamps to
// net.core.[rw]mem_max, and a refused size still leaves a working socket with its default
// buffers, so failures are ignored.
template <typename Socket>
void apply_socket_buffer(Socket& socket, std::uint32_t bytes) {
  if (bytes == 0) return;
  boost::system::error_code ignored;
  // SO_*BUF take an int; a size beyond it asks for the most the kernel gives anyway.
  constexpr std::uint32_t kLargest = 0x7fffffff;
  const int value = static_cast<int>(bytes > kLargest ? kLargest : bytes);
  socket.set_option(asio::socket_base::send_buffer_size(value), ignored);
  socket.set_option(asio::socket_base::receive_buffer_size(value), ignored);
}

// "rcvbuf=65536 sndbuf=65536": the sizes in force on an open socket, as SO_RCVBUF/SO_SNDBUF
// read them (Asio halves the doubled figure Linux reports, so a size that was set reads back
// as itself), or "unknown" when they cannot be read.
std::string describe_socket_buffers(tcp::socket& socket);

}  // namespace gridftp::transport
