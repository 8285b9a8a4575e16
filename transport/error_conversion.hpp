// The one place where Boost.Asio's error codes become the project's std::error_code values.
// Asio reports the end of a stream as asio::error::eof, whose value (2) read as an errno is
// ENOENT: converted naively, a peer that hangs up would surface as "550 No such file". Every
// transport, server and client path converts here instead.
#pragma once

#include <system_error>

#include "transport/asio.hpp"

namespace gridftp::transport {

enum class TransportErrc {
  PeerClosed = 1,   // the peer ended the connection (TCP FIN) where more bytes were due
  TimedOut,         // a Deadline expired while waiting on the connection
  HandshakeFailed,  // the connection's security handshake (DCAU, FTPS) was refused or broken
  EndOfStream,      // a clean end where one may come (TCP FIN, TLS close_notify): ByteStream reads
};

const std::error_category& transport_category();
std::error_code make_error_code(TransportErrc e);

// Errors: asio::error::eof -> TransportErrc::PeerClosed, operation_aborted -> ECANCELED,
// system (errno) errors as themselves, resolver errors as EHOSTUNREACH, anything else kept in
// a category that names it.
std::error_code to_error_code(const boost::system::error_code& ec);

}  // namespace gridftp::transport

template <>
struct std::is_error_code_enum<gridftp::transport::TransportErrc> : std::true_type {};
