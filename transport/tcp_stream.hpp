// A ByteStream that owns a clear TCP socket: gridftpd's control connection from accept to close
// (FTPS and GSI wrap it once negotiated, docs/ARCHITECTURE.md "The byte-stream seam"). Data
// connections use SocketStream instead, a view over a socket and DataLink their channel owns.
#pragma once

#include "transport/byte_stream.hpp"

namespace gridftp::transport {

class TcpStream final : public ByteStream {
 public:
  explicit TcpStream(tcp::socket socket) : socket_(std::move(socket)) {}

  asio::any_io_executor get_executor() override { return socket_.get_executor(); }
  awaitable<std::size_t> read_some(std::span<char> out, std::error_code& ec) override;
  awaitable<void> write_all(std::span<const char> bytes, std::error_code& ec,
                            bool more = false) override;
  // Shuts the sending side down (a FIN), so the peer reads to the end before close().
  awaitable<void> finish(std::error_code& ec) override;
  void close() override;
  tcp::socket* clear_socket() override { return &socket_; }
  bool peer_has_finished() override;

 private:
  tcp::socket socket_;
};

}  // namespace gridftp::transport
