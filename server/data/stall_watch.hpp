// The watchdog every data-connection loop runs under: a Deadline that closes the socket when no
// progress happens for `timeout` (callers re-arm it before each wait), and the one mapping from
// the resulting socket errors to transfer conditions. Stream mode and MODE E share it.
#pragma once

#include <chrono>
#include <memory>
#include <system_error>

#include "transport/asio.hpp"
#include "transport/byte_stream.hpp"
#include "transport/deadline.hpp"

namespace gridftp::server {

// Runs on `executor`, which must be where the socket's operations run.
std::shared_ptr<transport::Deadline> close_on_stall(
    const transport::asio::any_io_executor& executor, transport::tcp::socket& socket,
    std::chrono::seconds timeout);
// The same for a ByteStream, on its executor.
std::shared_ptr<transport::Deadline> close_on_stall(transport::ByteStream& stream,
                                                    std::chrono::seconds timeout);

// While a data connection is being set up (accept, connect, TLS handshake): a failure after the
// watchdog fired is a connection that never opened (DataConnection, 425).
std::error_code stall_or(const transport::Deadline& deadline, std::error_code ec);
// Socket errors and stalls once a transfer runs on an open connection: TransferAborted (426).
std::error_code data_socket_error(const boost::system::error_code& ec,
                                  const transport::Deadline& deadline);
std::error_code data_socket_error(const std::error_code& ec, const transport::Deadline& deadline);

}  // namespace gridftp::server
