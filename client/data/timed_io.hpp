// Blocking socket calls with a deadline, for the single-threaded client. Each call starts one Asio
// async operation and runs the io_context for at most the timeout, then cancels it, so a silent
// peer cannot hang gridcp (style: every wait has a timeout). Not for use with other work pending
// on the same io_context.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "client/clock.hpp"
#include "protocol/core/result.hpp"
#include "transport/asio.hpp"

namespace gridftp::client {

// Resolves host (a name or numeric literal) and connects to the first address that answers, the
// socket's buffers set to `socket_buffer` bytes first (-tcp-bs; 0: the kernel's autotuning).
// Errors: std::errc::timed_out, or the resolver/socket error of the last attempt.
Result<void> connect_with_deadline(transport::asio::io_context& io, transport::tcp::socket& socket,
                                   const std::string& host, std::uint16_t port,
                                   Clock::duration timeout, std::uint32_t socket_buffer = 0);

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

namespace detail {
// Runs `io` until `done` or `timeout`; on timeout closes `socket` (the pending operation then
// fails), drains the io_context and returns std::errc::timed_out.
std::error_code run_until_done(transport::asio::io_context& io, const bool& done,
                               transport::tcp::socket& socket, Clock::duration timeout);

template <typename T>
transport::awaitable<void> store_result(transport::awaitable<Result<T>> operation,
                                        std::optional<Result<T>>* out) {
  out->emplace(co_await std::move(operation));
}
}  // namespace detail

// The blocking face of the shared transport coroutines (transport::DataLink, the handshake
// driver): runs `operation`, which works on `socket`, to its end or for at most `timeout`, when
// the socket is closed and the result is std::errc::timed_out. One timeout for the whole
// operation, as the server's watchdog gives its data connections.
template <typename T>
Result<T> run_with_timeout(transport::asio::io_context& io, transport::tcp::socket& socket,
                           transport::awaitable<Result<T>> operation, Clock::duration timeout) {
  std::optional<Result<T>> out;
  bool done = false;
  transport::asio::co_spawn(io, detail::store_result(std::move(operation), &out),
                            [&done](const std::exception_ptr&) { done = true; });
  if (auto timed_out = detail::run_until_done(io, done, socket, timeout); timed_out) {
    return make_error(timed_out);
  }
  if (!out) return make_error(std::make_error_code(std::errc::io_error));  // it threw
  return std::move(*out);
}

}  // namespace gridftp::client
