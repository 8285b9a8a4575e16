// Runs any security::Handshake (GSI/DCAU, FTPS TLS) on a connected socket: the one I/O loop for
// every handshake that travels on a socket, used by gridftpd and gridcp alike
// (docs/ARCHITECTURE.md, "Security"). Whole TLS records only are handed to the handshake, so bytes
// that follow its last record in the same read (PROT C data, or the first protected records) come
// back to the caller instead of vanishing into the engine.
//
// Timeout rule: the driver itself never waits on a clock. The caller guards the whole exchange
// with one watchdog that closes the socket (transport::Deadline on the server, run_with_timeout
// in gridcp); the pending read or write then fails and the caller reports its own timeout.
#pragma once

#include <string>

#include "protocol/core/result.hpp"
#include "security/handshake.hpp"
#include "transport/asio.hpp"

namespace gridftp::transport {

// Drives `handshake` to completion; `initiator` speaks first. Returns the bytes received behind
// the handshake's last record. Errors: the handshake's (TlsErrc, GsiErrc, ...), Errc::BadReply for
// bytes that are not TLS records, TransportErrc::PeerClosed when the peer hangs up, and the
// socket's errors through to_error_code.
awaitable<Result<std::string>> drive_handshake(tcp::socket& socket, security::Handshake& handshake,
                                               bool initiator);

}  // namespace gridftp::transport
