#include "transport/tcp_stream.hpp"

#include <sys/socket.h>

#include "transport/error_conversion.hpp"

namespace gridftp::transport {
namespace {

std::error_code stream_error(const boost::system::error_code& ec) {
  if (ec == asio::error::eof) return make_error_code(TransportErrc::EndOfStream);
  return to_error_code(ec);
}

}  // namespace

awaitable<std::size_t> TcpStream::read_some(std::span<char> out, std::error_code& ec) {
  boost::system::error_code asio_ec;
  const auto got = co_await socket_.async_read_some(asio::buffer(out.data(), out.size()),
                                                    asio::redirect_error(use_awaitable, asio_ec));
  ec = stream_error(asio_ec);
  co_return got;
}

awaitable<void> TcpStream::write_all(std::span<const char> bytes, std::error_code& ec,
                                     bool /*more*/) {
  boost::system::error_code asio_ec;
  co_await asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()),
                             asio::redirect_error(use_awaitable, asio_ec));
  ec = stream_error(asio_ec);
}

awaitable<void> TcpStream::finish(std::error_code& ec) {
  boost::system::error_code asio_ec;
  socket_.shutdown(tcp::socket::shutdown_send, asio_ec);
  ec = stream_error(asio_ec);
  co_return;
}

void TcpStream::close() {
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

bool TcpStream::peer_has_finished() {
  if (!socket_.is_open()) return true;
  // A peek that neither waits nor takes a byte: 0 is the peer's FIN with nothing before it.
  char probe = 0;
  return ::recv(socket_.native_handle(), &probe, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace gridftp::transport
