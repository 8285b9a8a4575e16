#include "transport/file_send.hpp"

#include <cerrno>

#include <sys/sendfile.h>
#include <sys/socket.h>

#include "transport/peer_address.hpp"

namespace gridftp::transport {
namespace {

// sendfile(2) moves at most this much per call (Linux's MAX_RW_COUNT, page aligned).
constexpr std::size_t kMaxSendfileBytes = 0x7ffff000;

awaitable<void> wait_writable(tcp::socket& socket, boost::system::error_code& ec) {
  co_await socket.async_wait(tcp::socket::wait_write, asio::redirect_error(use_awaitable, ec));
}

}  // namespace

awaitable<std::size_t> async_send_file(tcp::socket& socket, int fd, std::uint64_t offset,
                                       std::size_t count, boost::system::error_code& ec) {
  ec.clear();
  if (!socket.non_blocking()) socket.non_blocking(true, ec);  // the setter is an ioctl each call
  std::size_t sent = 0;
  while (!ec && sent < count) {
    auto position = static_cast<off_t>(offset + sent);
    const auto n = ::sendfile(socket.native_handle(), fd, &position,
                              std::min(count - sent, kMaxSendfileBytes));
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n == 0) {
      break;  // the file ends before `count`
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      co_await wait_writable(socket, ec);
    } else if (errno != EINTR) {
      ec.assign(errno, boost::system::system_category());
    }
  }
  co_return sent;
}

bool sendfile_wanted(SendfileUse use, const tcp::socket& socket) {
  if (use != SendfileUse::OtherHosts) return use == SendfileUse::Always;
  boost::system::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  if (ec) return true;  // gone: the send fails either way
  const auto local = socket.local_endpoint(ec);
  if (ec) return true;
  const auto peer_address = unmapped(peer.address());
  return !peer_address.is_loopback() && peer_address != unmapped(local.address());
}

bool is_sendfile_unsupported(const boost::system::error_code& ec) {
  return ec == boost::system::errc::invalid_argument ||
         ec == boost::system::errc::function_not_supported;
}

awaitable<void> async_send_all(tcp::socket& socket, std::span<const char> bytes, bool more,
                               boost::system::error_code& ec) {
  ec.clear();
  if (!socket.non_blocking()) socket.non_blocking(true, ec);  // the setter is an ioctl each call
  while (!ec && !bytes.empty()) {
    const auto n = ::send(socket.native_handle(), bytes.data(), bytes.size(),
                          MSG_NOSIGNAL | (more ? MSG_MORE : 0));
    if (n >= 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      co_await wait_writable(socket, ec);
    } else if (errno != EINTR) {
      ec.assign(errno, boost::system::system_category());
    }
  }
}

}  // namespace gridftp::transport
