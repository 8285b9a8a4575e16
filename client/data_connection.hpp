// One stream-mode (MODE S) data connection that the client opened to a passive server address.
// End of file is the server closing it (RFC 959 §3.4.1). Not MODE E; that needs transport/.
#pragma once

#include <span>
#include <string_view>

#include "client/address_reply.hpp"
#include "client/timed_io.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

class DataConnection {
 public:
  // Connects within `timeout`; `timeout` also bounds every later read and write, so a stalled
  // transfer fails instead of hanging. Errors: those of connect_with_deadline.
  static Result<DataConnection> connect(transport::asio::io_context& io, const HostPort& address,
                                        Clock::duration timeout);

  // At least one byte, or 0 at end of file. Errors: timeout, socket error.
  Result<std::size_t> read_some(std::span<char> buffer);
  Result<void> write_all(std::string_view bytes);
  // Ends the upload with a half-close: the server sees end of file, while the socket stays open
  // until close(), after the 226, so no byte is lost to a reset. Errors: socket error.
  Result<void> finish_upload();
  void close();

 private:
  DataConnection(transport::asio::io_context& io, Clock::duration timeout);

  transport::asio::io_context* io_;
  transport::tcp::socket socket_;
  Clock::duration timeout_;
};

}  // namespace gridftp::client
