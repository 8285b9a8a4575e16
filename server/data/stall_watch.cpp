#include "server/data/stall_watch.hpp"

#include "protocol/core/errors.hpp"

namespace gridftp::server {

std::shared_ptr<transport::Deadline> close_on_stall(
    const transport::asio::any_io_executor& executor, transport::tcp::socket& socket,
    std::chrono::seconds timeout) {
  auto deadline = std::make_shared<transport::Deadline>(executor);
  deadline->expires_after(timeout);
  // The socket outlives the watch's action: callers stop() the deadline before they return.
  transport::start_watch(deadline, [&socket] {
    boost::system::error_code ignored;
    socket.close(ignored);
  });
  return deadline;
}

std::shared_ptr<transport::Deadline> close_on_stall(transport::ByteStream& stream,
                                                    std::chrono::seconds timeout) {
  auto deadline = std::make_shared<transport::Deadline>(stream.get_executor());
  deadline->expires_after(timeout);
  // As above: the stream outlives the watch's action.
  transport::start_watch(deadline, [&stream] { stream.close(); });
  return deadline;
}

std::error_code stall_or(const transport::Deadline& deadline, std::error_code ec) {
  return deadline.expired() ? error_code_for(Condition::DataConnection) : ec;
}

std::error_code data_socket_error(const boost::system::error_code& ec,
                                  const transport::Deadline& deadline) {
  // Whatever the socket says (a reset, a FIN where data was due, our own close after ABOR or a
  // stall), the connection was open and carrying the transfer: losing it is 426, not 425.
  return ec || deadline.expired() ? error_code_for(Condition::TransferAborted) : std::error_code{};
}

std::error_code data_socket_error(const std::error_code& ec, const transport::Deadline& deadline) {
  return ec || deadline.expired() ? error_code_for(Condition::TransferAborted) : std::error_code{};
}

}  // namespace gridftp::server
