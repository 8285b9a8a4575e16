// One UDP socket for a UDPX connection, with batched I/O (docs/UDPX.md §5): many datagrams per
// system call (sendmmsg/recvmmsg), and UDP generic segmentation offload where the kernel has it
// (one buffer of equal-size datagrams handed down in one call, split by the kernel or the NIC).
// Datagrams never fragment (don't-fragment is set), and the kernel's count of datagrams dropped
// for a full receive buffer is read from every datagram received (the kernel stamps it on the
// next one it queues), so the receiver can tell the sender that its own socket, not the path,
// lost them. Non-blocking calls; waiting is the caller's (an Asio
// wait on the socket, on the engine's own thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/core/result.hpp"
#include "transport/asio.hpp"

namespace gridftp::transport::udpx {

using udp = asio::ip::udp;

struct DatagramSocketOptions {
  std::size_t receive_buffer_bytes = 8 << 20;  // the kernel may cap it (net.core.rmem_max)
  std::size_t send_buffer_bytes = 4 << 20;
};

// One datagram to send: bytes and destination.
struct OutgoingDatagram {
  std::span<const std::uint8_t> bytes;
  udp::endpoint destination;
};

// A place to receive one datagram: the caller's buffer; length and source filled in. Where the
// kernel coalesced datagrams of one sender (UDP GRO), `segment_bytes` is their size and
// `length` holds them back to back, the last perhaps shorter; 0 for a single datagram.
struct IncomingDatagram {
  std::span<std::uint8_t> buffer;
  std::size_t length = 0;
  udp::endpoint source;
  std::size_t segment_bytes = 0;

  // Calls `each(span)` for every datagram the slot holds.
  template <typename Each>
  void for_each_datagram(Each&& each) const {
    const auto step = segment_bytes == 0 ? length : segment_bytes;
    for (std::size_t at = 0; at < length; at += step) {
      each(buffer.subspan(at, std::min(step, length - at)));
    }
  }
};

// A receive slot that can hold what UDP GRO coalesces: up to 64 datagrams, at most 64 KiB.
inline constexpr std::size_t kCoalescedSlotBytes = 65536;

class DatagramSocket {
 public:
  // Opens and binds a socket (port 0: the kernel picks) on `io` (an executor: the socket is
  // driven by hand on a thread of its own; asio only owns it).
  static Result<DatagramSocket> open(const asio::any_io_executor& io, const udp::endpoint& local,
                                     const DatagramSocketOptions& options = {});

  udp::endpoint local_endpoint() const;
  udp::socket& socket() { return socket_; }
  bool segmentation_offload() const { return gso_; }
  // Lets the kernel coalesce received datagrams (UDP GRO) from now on, where it can; true if
  // it will. Every receive slot must then have kCoalescedSlotBytes.
  bool coalesce_received();

  // Sends as many of `datagrams` as the socket takes now; returns how many went (0 when its
  // buffer is full). Runs of datagrams that lie back to back in memory, to one destination,
  // all of one size but the last, go as one segmented send where the kernel offloads. Errors: the
  // system error of a failed send (e.g. EMSGSIZE above the path MTU, ECONNREFUSED after an ICMP
  // port unreachable).
  Result<std::size_t> send_batch(std::span<const OutgoingDatagram> datagrams);

  // Sends `bytes` as datagrams of `segment_bytes` each (the last may be shorter) to one
  // destination, through send_batch. Returns the datagrams sent.
  Result<std::size_t> send_segments(std::span<const std::uint8_t> bytes, std::size_t segment_bytes,
                                    const udp::endpoint& destination);

  // Receives up to `slots.size()` datagrams waiting now; returns how many slots it filled (0
  // when none). A datagram longer than its slot is dropped and counted in truncated(). After
  // coalesce_received() one slot may hold many datagrams (IncomingDatagram::segment_bytes).
  Result<std::size_t> receive_batch(std::span<IncomingDatagram> slots);

  // Datagrams the kernel dropped because the receive buffer was full, since the socket opened.
  std::uint32_t overflow_drops() const { return overflow_drops_; }
  std::uint64_t truncated() const { return truncated_; }

 private:
  explicit DatagramSocket(udp::socket socket) : socket_(std::move(socket)) {}

  udp::socket socket_;
  bool gso_ = false;
  bool gro_ = false;
  std::uint32_t overflow_drops_ = 0;
  std::uint64_t truncated_ = 0;
};

}  // namespace gridftp::transport::udpx
