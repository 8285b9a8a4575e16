#include "transport/udpx/datagram_socket.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>

#include "transport/error_conversion.hpp"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103  // linux/udp.h; older libc headers lack it
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

namespace gridftp::transport::udpx {
namespace {

constexpr std::size_t kBatch = 64;               // datagrams per sendmmsg/recvmmsg
constexpr std::size_t kMaxOffloadBytes = 65000;  // below the 64 KiB UDP length limit
constexpr std::size_t kMaxOffloadSegments = 64;  // the kernel's UDP_MAX_SEGMENTS

std::error_code last_error() { return {errno, std::system_category()}; }

bool would_block(int error) { return error == EAGAIN || error == EWOULDBLOCK; }

template <typename T>
bool set_option(int fd, int level, int name, T value) {
  return ::setsockopt(fd, level, name, &value, sizeof(value)) == 0;
}

}  // namespace

Result<DatagramSocket> DatagramSocket::open(const asio::any_io_executor& io,
                                            const udp::endpoint& local,
                                            const DatagramSocketOptions& options) {
  udp::socket socket(io);
  boost::system::error_code ec;
  socket.open(local.protocol(), ec);
  if (!ec) socket.bind(local, ec);
  if (!ec) socket.non_blocking(true, ec);
  if (ec) {
    return make_error(to_error_code(ec));
  }
  // Buffers: best effort, the kernel caps them at net.core.{r,w}mem_max.
  socket.set_option(
      udp::socket::receive_buffer_size(static_cast<int>(options.receive_buffer_bytes)), ec);
  socket.set_option(udp::socket::send_buffer_size(static_cast<int>(options.send_buffer_bytes)), ec);
  const int fd = socket.native_handle();
  // Never fragment: a lost fragment loses the whole datagram, and the HELLO's full size proves
  // what the path carries (docs/UDPX.md §1.1).
  const bool df = local.address().is_v6()
                      ? set_option(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, int{IPV6_PMTUDISC_DO})
                      : set_option(fd, IPPROTO_IP, IP_MTU_DISCOVER, int{IP_PMTUDISC_DO});
  if (!df || !set_option(fd, SOL_SOCKET, SO_RXQ_OVFL, int{1})) {
    return make_error(last_error());
  }
  DatagramSocket made(std::move(socket));
  // Segmentation offload is there if the option can be set; each send then asks for it.
  made.gso_ = set_option(fd, SOL_UDP, UDP_SEGMENT, int{1200}) &&
              set_option(fd, SOL_UDP, UDP_SEGMENT, int{0});
  return made;
}

udp::endpoint DatagramSocket::local_endpoint() const {
  boost::system::error_code ec;
  return socket_.local_endpoint(ec);
}

bool DatagramSocket::coalesce_received() {
  gro_ = gro_ || set_option(socket_.native_handle(), SOL_UDP, UDP_GRO, int{1});
  return gro_;
}

namespace {

// How many of `datagrams` from `first` can go as one segmented send: back to back in memory, to
// one destination, each the size of the first but the last, which may be shorter.
std::size_t segment_run(std::span<const OutgoingDatagram> datagrams, std::size_t first) {
  const auto& head = datagrams[first];
  const std::size_t size = head.bytes.size();
  const std::size_t most =
      std::min(kMaxOffloadSegments, kMaxOffloadBytes / std::max<std::size_t>(size, 1));
  std::size_t count = 1;
  const std::uint8_t* next = head.bytes.data() + size;
  while (first + count < datagrams.size() && count < most) {
    const auto& candidate = datagrams[first + count];
    if (candidate.bytes.data() != next || candidate.bytes.size() > size ||
        candidate.destination != head.destination) {
      break;
    }
    ++count;
    next += candidate.bytes.size();
    if (candidate.bytes.size() < size) break;  // a shorter one ends the run
  }
  return count;
}

}  // namespace

Result<std::size_t> DatagramSocket::send_batch(std::span<const OutgoingDatagram> datagrams) {
  std::array<mmsghdr, kBatch> messages{};
  std::array<iovec, kBatch> vectors{};
  // The segment size of each segmented message, and how many datagrams each message carries.
  struct alignas(cmsghdr) Control {
    std::array<char, CMSG_SPACE(sizeof(std::uint16_t))> bytes;
  };
  std::array<Control, kBatch> controls{};
  std::array<std::size_t, kBatch> carried{};
  std::size_t sent_total = 0;
  while (sent_total < datagrams.size()) {
    std::size_t count = 0;
    for (std::size_t at = sent_total; count < kBatch && at < datagrams.size(); ++count) {
      const auto& datagram = datagrams[at];
      const std::size_t run = gso_ ? segment_run(datagrams, at) : 1;
      std::size_t bytes = 0;
      for (std::size_t k = 0; k < run; ++k) bytes += datagrams[at + k].bytes.size();
      // sendmmsg only reads these; the casts drop const for the C struct's sake.
      vectors[count].iov_base = const_cast<std::uint8_t*>(datagram.bytes.data());
      vectors[count].iov_len = bytes;
      messages[count] = mmsghdr{};
      auto& header = messages[count].msg_hdr;
      header.msg_name = const_cast<sockaddr*>(datagram.destination.data());
      header.msg_namelen = static_cast<socklen_t>(datagram.destination.size());
      header.msg_iov = &vectors[count];
      header.msg_iovlen = 1;
      if (run > 1) {
        header.msg_control = controls[count].bytes.data();
        header.msg_controllen = controls[count].bytes.size();
        cmsghdr* control = CMSG_FIRSTHDR(&header);
        control->cmsg_level = SOL_UDP;
        control->cmsg_type = UDP_SEGMENT;
        control->cmsg_len = CMSG_LEN(sizeof(std::uint16_t));
        const auto segment = static_cast<std::uint16_t>(datagram.bytes.size());
        std::memcpy(CMSG_DATA(control), &segment, sizeof(segment));
      }
      carried[count] = run;
      at += run;
    }
    const int sent = ::sendmmsg(socket_.native_handle(), messages.data(),
                                static_cast<unsigned>(count), MSG_DONTWAIT);
    if (sent < 0) {
      if (would_block(errno)) break;
      if (sent_total > 0) break;  // report what went; the error comes back on the next call
      return make_error(last_error());
    }
    for (int i = 0; i < sent; ++i) sent_total += carried[static_cast<std::size_t>(i)];
    if (static_cast<std::size_t>(sent) < count) break;
  }
  return sent_total;
}

Result<std::size_t> DatagramSocket::send_segments(std::span<const std::uint8_t> bytes,
                                                  std::size_t segment_bytes,
                                                  const udp::endpoint& destination) {
  if (segment_bytes == 0) {
    return std::size_t{0};
  }
  // The datagrams lie back to back, so send_batch hands them down as segmented sends where
  // the kernel offloads.
  std::size_t datagrams_sent = 0;
  std::size_t offset = 0;
  std::array<OutgoingDatagram, kBatch> batch;
  while (offset < bytes.size()) {
    std::size_t count = 0;
    std::size_t cursor = offset;
    for (; count < kBatch && cursor < bytes.size(); ++count) {
      const std::size_t length = std::min(segment_bytes, bytes.size() - cursor);
      batch[count] = {bytes.subspan(cursor, length), destination};
      cursor += length;
    }
    auto sent = send_batch(std::span(batch.data(), count));
    if (!sent) return datagrams_sent > 0 ? Result<std::size_t>(datagrams_sent) : sent;
    datagrams_sent += *sent;
    offset += std::min(*sent * segment_bytes, bytes.size() - offset);
    if (*sent < count) break;
  }
  return datagrams_sent;
}

Result<std::size_t> DatagramSocket::receive_batch(std::span<IncomingDatagram> slots) {
  std::array<mmsghdr, kBatch> messages{};
  std::array<iovec, kBatch> vectors{};
  std::array<sockaddr_storage, kBatch> sources{};
  struct alignas(cmsghdr) Control {
    std::array<char, CMSG_SPACE(sizeof(std::uint32_t)) + CMSG_SPACE(sizeof(int))> bytes;
  };
  std::array<Control, kBatch> controls{};
  const std::size_t count = std::min(kBatch, slots.size());
  for (std::size_t i = 0; i < count; ++i) {
    vectors[i] = {slots[i].buffer.data(), slots[i].buffer.size()};
    messages[i].msg_hdr.msg_name = &sources[i];
    messages[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
    messages[i].msg_hdr.msg_iov = &vectors[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    messages[i].msg_hdr.msg_control = controls[i].bytes.data();
    messages[i].msg_hdr.msg_controllen = controls[i].bytes.size();
  }
  const int received = ::recvmmsg(socket_.native_handle(), messages.data(),
                                  static_cast<unsigned>(count), MSG_DONTWAIT, nullptr);
  if (received < 0) {
    if (would_block(errno)) return std::size_t{0};
    return make_error(last_error());
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(received); ++i) {
    msghdr& header = messages[i].msg_hdr;
    int segment = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
        std::memcpy(&overflow_drops_, CMSG_DATA(c), sizeof(overflow_drops_));
      } else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
        std::memcpy(&segment, CMSG_DATA(c), sizeof(segment));
      }
    }
    if ((header.msg_flags & MSG_TRUNC) != 0) {
      ++truncated_;
      continue;
    }
    // Slots keep their buffers; a dropped one leaves its place to the next datagram's data.
    if (kept != i) std::swap(slots[kept], slots[i]);
    slots[kept].length = messages[i].msg_len;
    slots[kept].segment_bytes = segment > 0 && messages[i].msg_len > static_cast<unsigned>(segment)
                                    ? static_cast<std::size_t>(segment)
                                    : 0;
    udp::endpoint source;
    std::memcpy(source.data(), &sources[i], header.msg_namelen);
    source.resize(header.msg_namelen);
    slots[kept].source = source;
    ++kept;
  }
  return kept;
}

}  // namespace gridftp::transport::udpx
