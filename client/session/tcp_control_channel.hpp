// ControlChannel over a plain TCP socket (ftp:// URLs): lines go out as they are plus CRLF.
#pragma once

#include <memory>

#include "client/data/timed_io.hpp"
#include "client/session/control_channel.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

class TcpControlChannel final : public ControlChannel {
 public:
  // Connects to host:port within `timeout`; writes later use the same timeout.
  // Errors: those of connect_with_deadline.
  static Result<std::unique_ptr<TcpControlChannel>> connect(transport::asio::io_context& io,
                                                            const std::string& host,
                                                            std::uint16_t port,
                                                            Clock::duration timeout);

  TcpControlChannel(transport::asio::io_context& io, Clock::duration write_timeout);

  Result<void> write_line(std::string_view line) override;
  Result<std::size_t> read_some(std::span<char> buffer, Clock::duration timeout) override;
  std::string peer_address() const override;
  bool is_ipv6() const override;
  std::string local_address() const override;
  void close() override;

  // For a layer that runs its own transport on the connection (FTPS's TLS link).
  transport::asio::io_context& io() { return io_; }
  transport::tcp::socket& socket() { return socket_; }
  Clock::duration write_timeout() const { return write_timeout_; }

 private:
  transport::asio::io_context& io_;
  transport::tcp::socket socket_;
  Clock::duration write_timeout_;
};

}  // namespace gridftp::client
