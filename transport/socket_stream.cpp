#include "transport/socket_stream.hpp"

#include "transport/error_conversion.hpp"

namespace gridftp::transport {
namespace {

// DataLink reports a clean end as asio::error::eof (TCP FIN or close_notify).
std::error_code stream_error(const boost::system::error_code& ec) {
  if (ec == asio::error::eof) return make_error_code(TransportErrc::EndOfStream);
  return to_error_code(ec);
}

}  // namespace

awaitable<std::size_t> SocketStream::read_some(std::span<char> out, std::error_code& ec) {
  boost::system::error_code asio_ec;
  const auto got = co_await link_.read_some(socket_, out, asio_ec);
  ec = stream_error(asio_ec);
  co_return got;
}

awaitable<void> SocketStream::write_all(std::span<const char> bytes, std::error_code& ec,
                                        bool more) {
  boost::system::error_code asio_ec;
  co_await link_.write_all(socket_, bytes, asio_ec, more);
  ec = stream_error(asio_ec);
}

awaitable<void> SocketStream::finish(std::error_code& ec) {
  boost::system::error_code asio_ec;
  co_await link_.finish(socket_, asio_ec);
  ec = stream_error(asio_ec);
}

void SocketStream::close() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace gridftp::transport
