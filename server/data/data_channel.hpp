// How a session's next data connection is made: passive (PASV/EPSV: we listen, the peer
// connects) or active (PORT/EPRT: we connect). One setup serves one stream-mode transfer.
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "protocol/core/result.hpp"
#include "server/config/server_config.hpp"
#include "transport/asio.hpp"

namespace gridftp::server {

namespace asio = transport::asio;
using transport::tcp;

class DataChannel {
 public:
  DataChannel(const asio::any_io_executor& executor, const ListenConfig& listen)
      : executor_(executor), listen_(listen) {}

  // Opens a listener on `local_address` within the passive port range and returns its endpoint.
  // Errors: errno from bind/listen (EADDRINUSE when the whole range is taken).
  Result<tcp::endpoint> listen_passive(const asio::ip::address& local_address);
  void set_active(const tcp::endpoint& peer);
  bool is_configured() const { return acceptor_ != nullptr || active_peer_.has_value(); }
  // Closes a pending listener or connection attempt (used by ABOR and at session end).
  void cancel();

  // Accepts or connects, within `timeout`. The setup is consumed either way.
  // Errors: Condition::DataConnection with the cause logged by the caller.
  transport::awaitable<Result<std::shared_ptr<tcp::socket>>> open(std::chrono::seconds timeout);

 private:
  asio::any_io_executor executor_;
  const ListenConfig& listen_;
  // Shared with open()'s watchdog; cancel() closes whichever is live so ABOR ends a pending open.
  std::shared_ptr<tcp::acceptor> acceptor_;
  std::shared_ptr<tcp::socket> opening_socket_;
  std::optional<tcp::endpoint> active_peer_;
};

}  // namespace gridftp::server
