// Error codes the client raises itself, about what the servers or the local file did (not socket
// or parser errors, which keep their own categories). Each maps onto a gridftp::Condition.
#pragma once

#include <system_error>

namespace gridftp::client {

enum class ClientErrc {
  ChecksumMismatch = 1,  // -verify-checksum: source and destination digests differ
  ChecksumUnavailable,   // a CKSM reply was not "213 <hex>"
  UnknownSize,           // -off without -len needs a size the server would not give
  Cancelled,             // the other half of the transfer failed first
  DataPeerMismatch,      // DCAU A: a data connection's peer is not who we are
  UdpxNeedsDcau,         // -udp without gsiftp:// DCAU or --udp-unauthenticated: no key for UDPX
  UdpxFailed,            // the UDPX transfer ended before the file was whole
};

const std::error_category& client_category();
std::error_code make_error_code(ClientErrc e);

}  // namespace gridftp::client

template <>
struct std::is_error_code_enum<gridftp::client::ClientErrc> : std::true_type {};
