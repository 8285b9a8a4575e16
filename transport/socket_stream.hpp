// A ByteStream over a TCP socket and its DataLink: clear, or TLS after the link's handshake. The
// socket and the link stay the caller's (a data connection owns both) and must outlive this view.
#pragma once

#include "transport/byte_stream.hpp"
#include "transport/data_link.hpp"

namespace gridftp::transport {

class SocketStream final : public ByteStream {
 public:
  SocketStream(tcp::socket& socket, DataLink& link) : socket_(socket), link_(link) {}

  asio::any_io_executor get_executor() override { return socket_.get_executor(); }
  awaitable<std::size_t> read_some(std::span<char> out, std::error_code& ec) override;
  awaitable<void> write_all(std::span<const char> bytes, std::error_code& ec,
                            bool more = false) override;
  awaitable<void> finish(std::error_code& ec) override;
  void close() override;
  tcp::socket* clear_socket() override { return link_.is_clear() ? &socket_ : nullptr; }

 private:
  tcp::socket& socket_;
  DataLink& link_;
};

}  // namespace gridftp::transport
