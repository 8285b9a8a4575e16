#include "client/data_connection.hpp"

namespace gridftp::client {

Result<DataConnection> DataConnection::connect(transport::asio::io_context& io,
                                               const HostPort& address, Clock::duration timeout) {
  DataConnection connection(io, timeout);
  if (auto connected =
          connect_with_deadline(io, connection.socket_, address.host, address.port, timeout);
      !connected) {
    return make_error(connected.error());
  }
  return connection;
}

DataConnection::DataConnection(transport::asio::io_context& io, Clock::duration timeout)
    : io_(&io), socket_(io), timeout_(timeout) {}

Result<std::size_t> DataConnection::read_some(std::span<char> buffer) {
  return read_some_with_deadline(*io_, socket_, buffer, timeout_);
}

Result<void> DataConnection::write_all(std::string_view bytes) {
  return write_all_with_deadline(*io_, socket_, bytes, timeout_);
}

Result<void> DataConnection::finish_upload() {
  boost::system::error_code ec;
  socket_.shutdown(transport::tcp::socket::shutdown_send, ec);
  if (ec) {
    return make_error(static_cast<std::error_code>(ec));
  }
  return {};
}

void DataConnection::close() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace gridftp::client
