#include "client/session/tcp_control_channel.hpp"

#include <string>

namespace gridftp::client {

Result<std::unique_ptr<TcpControlChannel>> TcpControlChannel::connect(
    transport::asio::io_context& io, const std::string& host, std::uint16_t port,
    Clock::duration timeout) {
  auto channel = std::make_unique<TcpControlChannel>(io, timeout);
  if (auto connected = connect_with_deadline(io, channel->socket_, host, port, timeout);
      !connected) {
    return make_error(connected.error());
  }
  // Pipelined commands (docs/WIRE.md §1.7) must not wait for the previous segment's ACK.
  boost::system::error_code ignored;
  channel->socket_.set_option(transport::asio::ip::tcp::no_delay(true), ignored);
  return channel;
}

TcpControlChannel::TcpControlChannel(transport::asio::io_context& io, Clock::duration write_timeout)
    : io_(io), socket_(io), write_timeout_(write_timeout) {}

Result<void> TcpControlChannel::write_line(std::string_view line) {
  std::string wire(line);
  wire += "\r\n";
  return write_all_with_deadline(io_, socket_, wire, write_timeout_);
}

Result<std::size_t> TcpControlChannel::read_some(std::span<char> buffer, Clock::duration timeout) {
  return read_some_with_deadline(io_, socket_, buffer, timeout);
}

std::string TcpControlChannel::peer_address() const {
  boost::system::error_code ec;
  const auto endpoint = socket_.remote_endpoint(ec);
  if (ec) {
    return {};
  }
  return endpoint.address().to_string();
}

std::string TcpControlChannel::local_address() const {
  boost::system::error_code ec;
  const auto endpoint = socket_.local_endpoint(ec);
  if (ec) {
    return {};
  }
  return endpoint.address().to_string();
}

bool TcpControlChannel::is_ipv6() const {
  boost::system::error_code ec;
  const auto endpoint = socket_.remote_endpoint(ec);
  return !ec && endpoint.address().is_v6() && !endpoint.address().to_v6().is_v4_mapped();
}

void TcpControlChannel::close() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace gridftp::client
