#include "client/data/timed_io.hpp"

#include <optional>

#include "transport/error_conversion.hpp"
#include "transport/socket_buffer.hpp"

namespace gridftp::client {
namespace {

namespace asio = transport::asio;
using transport::tcp;

// Runs the io_context until the started operation has completed or `timeout` has passed. On
// timeout the socket is closed, which makes the pending handler run with operation_aborted; we
// drain it here so that it never fires during a later call.
template <typename Closable>
std::error_code wait_or_close(asio::io_context& io, const bool& done, Closable& closable,
                              Clock::duration timeout) {
  io.restart();
  io.run_for(timeout);
  if (done) {
    return {};
  }
  boost::system::error_code ignored;
  closable.close(ignored);
  io.restart();
  io.run();
  return make_error_code(std::errc::timed_out);
}

}  // namespace

std::error_code detail::run_until_done(asio::io_context& io, const bool& done, tcp::socket& socket,
                                       Clock::duration timeout) {
  return wait_or_close(io, done, socket, timeout);
}

Result<void> connect_with_deadline(asio::io_context& io, tcp::socket& socket,
                                   const std::string& host, std::uint16_t port,
                                   Clock::duration timeout, std::uint32_t socket_buffer) {
  const auto deadline = Clock::now() + timeout;
  tcp::resolver resolver(io);
  bool done = false;
  boost::system::error_code error;
  tcp::resolver::results_type endpoints;
  resolver.async_resolve(host, std::to_string(port), asio::ip::resolver_base::numeric_service,
                         [&](const boost::system::error_code& ec, tcp::resolver::results_type r) {
                           done = true;
                           error = ec;
                           endpoints = std::move(r);
                         });
  io.restart();
  io.run_for(timeout);
  if (!done) {
    resolver.cancel();
    io.restart();
    io.run();
    return make_error(make_error_code(std::errc::timed_out));
  }
  if (error) {
    return make_error(transport::to_error_code(error));
  }
  // One endpoint at a time, each socket opened here: the buffer sizes must be set before
  // connect() so that the window scale in the SYN can use them (asio::async_connect over the
  // whole list would reopen the socket without them).
  for (const auto& entry : endpoints) {
    boost::system::error_code ignored;
    socket.close(ignored);
    socket.open(entry.endpoint().protocol(), error);
    if (error) {
      continue;
    }
    transport::apply_socket_buffer(socket, socket_buffer);
    done = false;
    socket.async_connect(entry.endpoint(), [&](const boost::system::error_code& ec) {
      done = true;
      error = ec;
    });
    const auto left = deadline - Clock::now();
    if (auto timed_out = wait_or_close(
            io, done, socket, left > Clock::duration::zero() ? left : Clock::duration::zero());
        timed_out) {
      return make_error(timed_out);
    }
    if (!error) {
      return {};
    }
  }
  if (!error) {
    error = asio::error::host_not_found;  // the resolver gave no address at all
  }
  return make_error(transport::to_error_code(error));
}

Result<std::size_t> read_some_with_deadline(asio::io_context& io, tcp::socket& socket,
                                            std::span<char> buffer, Clock::duration timeout) {
  bool done = false;
  boost::system::error_code error;
  std::size_t count = 0;
  socket.async_read_some(asio::buffer(buffer.data(), buffer.size()),
                         [&](const boost::system::error_code& ec, std::size_t n) {
                           done = true;
                           error = ec;
                           count = n;
                         });
  if (auto timed_out = wait_or_close(io, done, socket, timeout); timed_out) {
    return make_error(timed_out);
  }
  if (error == asio::error::eof) {
    return std::size_t{0};
  }
  if (error) {
    return make_error(transport::to_error_code(error));
  }
  return count;
}

Result<void> accept_with_deadline(asio::io_context& io, tcp::acceptor& acceptor,
                                  tcp::socket& socket, Clock::duration timeout) {
  bool done = false;
  boost::system::error_code error;
  acceptor.async_accept(socket, [&](const boost::system::error_code& ec) {
    done = true;
    error = ec;
  });
  if (auto timed_out = wait_or_close(io, done, acceptor, timeout); timed_out) {
    return make_error(timed_out);
  }
  if (error) {
    return make_error(transport::to_error_code(error));
  }
  return {};
}

Result<void> write_all_with_deadline(asio::io_context& io, tcp::socket& socket,
                                     std::string_view bytes, Clock::duration timeout) {
  bool done = false;
  boost::system::error_code error;
  asio::async_write(socket, asio::buffer(bytes.data(), bytes.size()),
                    [&](const boost::system::error_code& ec, std::size_t) {
                      done = true;
                      error = ec;
                    });
  if (auto timed_out = wait_or_close(io, done, socket, timeout); timed_out) {
    return make_error(timed_out);
  }
  if (error) {
    return make_error(transport::to_error_code(error));
  }
  return {};
}

}  // namespace gridftp::client
