// One stream-mode (MODE S) data connection that the client opened to a passive server address.
// End of file is the server closing it (RFC 959 §3.4.1). On gsiftp with DCAU it is secured
// (data_socket) once the transfer command is out. Not MODE E; see mode_e_sender/receiver.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "client/data/data_socket.hpp"
#include "client/data/timed_io.hpp"
#include "protocol/control/passive_reply.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

class DataConnection {
 public:
  // Connects within `timeout`; `timeout` also bounds every later read and write, so a stalled
  // transfer fails instead of hanging. The connection runs on its own io_context, so that its
  // handshake can proceed on another thread while the control connection waits for a reply.
  // `socket_buffer`: SO_SNDBUF/SO_RCVBUF set before connecting (-tcp-bs; 0: autotuning).
  // Errors: those of connect_with_deadline.
  static Result<DataConnection> connect(const protocol::control::HostPort& address,
                                        Clock::duration timeout, std::uint32_t socket_buffer = 0);

  // The GSI handshake as the connecting side (DataSocket::secure). May run on another thread
  // than the caller's, but on one thread at a time. Errors: those of DataSocket::secure.
  Result<void> secure(const DataChannelSecurity& security);
  // Aborts a secure() or read running on another thread; thread-safe.
  void cancel();
  // At least one byte, or 0 at end of file. Errors: timeout, socket and TLS errors.
  Result<std::size_t> read_some(std::span<char> buffer);
  Result<void> write_all(std::string_view bytes);
  // Ends what we send with a half-close (FTPS: close_notify first). An upload's end of file: the
  // server sees it while the socket stays open until close(), after the 226, so no byte is lost
  // to a reset. After a get it answers the server's close_notify, which FTPS servers such as
  // vsftpd wait for. Errors: socket error.
  Result<void> end_sending();
  void close();
  const std::string& failure_detail() const { return data_->failure_detail(); }

 private:
  explicit DataConnection(Clock::duration timeout);

  std::unique_ptr<transport::asio::io_context> io_;  // declared first: outlives the socket
  std::unique_ptr<DataSocket> data_;
  Clock::duration timeout_;
};

}  // namespace gridftp::client
