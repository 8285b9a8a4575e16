#include "server/data/stall_watch.hpp"

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

namespace gridftp::server {
namespace {

namespace asio = transport::asio;
using transport::tcp;

TEST_CASE("close_on_stall closes the socket when no progress comes", "[data]") {
  asio::io_context io;
  tcp::socket socket(io);
  socket.open(tcp::v4());
  // A zero timeout has already passed when the watch first looks: it fires at once.
  const auto deadline = close_on_stall(io.get_executor(), socket, std::chrono::seconds(0));
  io.run();
  CHECK(deadline->expired());
  CHECK_FALSE(socket.is_open());
  // Whatever the close made the pending operation fail with: while the connection was being
  // set up it never opened (425); once a transfer ran on it, it was lost (426).
  CHECK(stall_or(*deadline, error_code_for(Condition::TransferAborted)) ==
        error_code_for(Condition::DataConnection));
  CHECK(data_socket_error(asio::error::operation_aborted, *deadline) ==
        error_code_for(Condition::TransferAborted));
  CHECK(data_socket_error(boost::system::error_code{}, *deadline) ==
        error_code_for(Condition::TransferAborted));
}

TEST_CASE("A stopped stall watch leaves the socket alone", "[data]") {
  asio::io_context io;
  tcp::socket socket(io);
  socket.open(tcp::v4());
  const auto deadline = close_on_stall(io.get_executor(), socket, std::chrono::seconds(0));
  deadline->stop();
  io.run();
  CHECK_FALSE(deadline->expired());
  CHECK(socket.is_open());
  const auto aborted = error_code_for(Condition::TransferAborted);
  CHECK(stall_or(*deadline, aborted) == aborted);
}

TEST_CASE("A data connection lost mid-transfer is 426, never a file error", "[data]") {
  asio::io_context io;
  transport::Deadline idle(io.get_executor());  // never started: not a stall
  const auto aborted = error_code_for(Condition::TransferAborted);
  CHECK(data_socket_error(asio::error::operation_aborted, idle) == aborted);
  CHECK(data_socket_error(asio::error::connection_reset, idle) == aborted);
  CHECK(data_socket_error(asio::error::broken_pipe, idle) == aborted);
  // eof's value is errno 2: read as an errno it would be "550 No such file".
  CHECK(data_socket_error(asio::error::eof, idle) == aborted);
  CHECK(data_socket_error(asio::error::eof, idle) != Condition::NotFound);
  CHECK_FALSE(data_socket_error(boost::system::error_code{}, idle));
  // The same for a ByteStream's errors.
  CHECK(data_socket_error(std::make_error_code(std::errc::connection_reset), idle) == aborted);
  CHECK_FALSE(data_socket_error(std::error_code{}, idle));
}

}  // namespace
}  // namespace gridftp::server
