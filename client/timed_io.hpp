// Blocking socket calls with a deadline, for the single-threaded client. Each call starts one Asio
// async operation and runs the io_context for at most the timeout, then cancels it, so a silent
// peer cannot hang gridcp (style: every wait has a timeout). Not for use with other work pending
// on the same io_context.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "client/clock.hpp"
#include "protocol/core/result.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

// Resolves host (a name or numeric literal) and connects to the first address that answers.
// Errors: std::errc::timed_out, or the resolver/socket error of the last attempt.
Result<void> connect_with_deadline(transport::asio::io_context& io, transport::tcp::socket& socket,
                                   const std::string& host, std::uint16_t port,
                                   Clock::duration timeout);

// Reads what is available, at least one byte. Returns 0 at end of stream.
// Errors: std::errc::timed_out, or the socket error.
Result<std::size_t> read_some_with_deadline(transport::asio::io_context& io,
                                            transport::tcp::socket& socket, std::span<char> buffer,
                                            Clock::duration timeout);

// Accepts one connection on `acceptor` into `socket` (which may belong to another io_context),
// running `io`, the acceptor's context. Errors: std::errc::timed_out (the acceptor is then
// closed), or the socket error.
Result<void> accept_with_deadline(transport::asio::io_context& io,
                                  transport::tcp::acceptor& acceptor,
                                  transport::tcp::socket& socket, Clock::duration timeout);

// Writes all of `bytes`. Errors: std::errc::timed_out, or the socket error.
Result<void> write_all_with_deadline(transport::asio::io_context& io,
                                     transport::tcp::socket& socket, std::string_view bytes,
                                     Clock::duration timeout);

}  // namespace gridftp::client
