#include "client/data/data_connection.hpp"

namespace gridftp::client {

Result<DataConnection> DataConnection::connect(const protocol::control::HostPort& address,
                                               Clock::duration timeout,
                                               std::uint32_t socket_buffer) {
  DataConnection connection(timeout);
  if (auto connected = connect_with_deadline(*connection.io_, connection.data_->socket(),
                                             address.address, address.port, timeout, socket_buffer);
      !connected) {
    return make_error(connected.error());
  }
  return connection;
}

DataConnection::DataConnection(Clock::duration timeout)
    : io_(std::make_unique<transport::asio::io_context>()),
      data_(std::make_unique<DataSocket>(*io_)),
      timeout_(timeout) {}

Result<void> DataConnection::secure(const DataChannelSecurity& security) {
  return data_->secure(security, security::TlsRole::Client, timeout_);
}

void DataConnection::cancel() {
  // Runs inside the blocked call's run_for, on its thread (timed_io's rule).
  transport::asio::post(*io_, [socket = &data_->socket()] {
    boost::system::error_code ignored;
    socket->close(ignored);
  });
}

Result<std::size_t> DataConnection::read_some(std::span<char> buffer) {
  return data_->read_some(buffer, timeout_);
}

Result<void> DataConnection::write_all(std::string_view bytes) {
  return data_->write_all(bytes, timeout_);
}

Result<void> DataConnection::end_sending() { return data_->end_sending(timeout_); }

void DataConnection::close() {
  boost::system::error_code ignored;
  data_->socket().close(ignored);
}

}  // namespace gridftp::client
