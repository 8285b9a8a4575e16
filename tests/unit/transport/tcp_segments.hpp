// How a TCP socket's data has left: the kernel's count of data segments sent and the send MSS
// (TCP_INFO), for tests that check the size of what goes on the wire.
#pragma once

#include <cstdint>
#include <optional>

namespace gridftp::testing {

struct TcpSegments {
  std::uint32_t data_segments_sent;  // tcpi_data_segs_out: segments that carried data
  std::uint32_t send_mss;            // tcpi_snd_mss
};

// Of the connected TCP socket `fd`; nullopt when the kernel does not say.
std::optional<TcpSegments> tcp_segments(int fd);

}  // namespace gridftp::testing
