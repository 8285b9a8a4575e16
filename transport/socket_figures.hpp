// What the transfer log records of one data connection (docs/ARCHITECTURE.md, "Transfer log"),
// read from its socket by the thread that runs it: Asio sockets are not thread-safe, and a MODE E
// stream's socket may be closed on its own loop (ABOR, another stream failing) while the session
// writes the record, so the session never reads a stream's socket itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "transport/asio.hpp"

namespace gridftp::transport {

struct SocketFigures {
  std::string peer;                          // the peer's address; empty when unknown
  std::string buffers;                       // describe_socket_buffers()
  std::uint32_t send_buffer = 0;             // SO_SNDBUF as Linux reports it (twice what was set)
  std::uint32_t receive_buffer = 0;          // SO_RCVBUF, the same
  std::optional<std::uint32_t> retransmits;  // TCP_INFO's tcpi_total_retrans
};

// Reads what it can; a closed socket gives empty figures.
SocketFigures read_socket_figures(tcp::socket& socket);

}  // namespace gridftp::transport
