// Where a control connection runs between, as plain values: what a session needs of its socket's
// addresses (the per-address count and log, the FTP bounce check, PASV's address), taken once at
// accept so the session itself needs no socket (tests build one over a memory stream).
#pragma once

#include <optional>
#include <string>

#include "transport/asio.hpp"
#include "transport/peer_address.hpp"

namespace gridftp::server {

struct ControlEndpoints {
  // Empty when the socket could not say (the peer left between accept and the call).
  std::optional<transport::tcp::endpoint> local;
  std::optional<transport::tcp::endpoint> peer;

  static ControlEndpoints of(const transport::tcp::socket& socket) {
    ControlEndpoints endpoints;
    boost::system::error_code ec;
    const auto local = socket.local_endpoint(ec);
    if (!ec) endpoints.local = local;
    const auto peer = socket.remote_endpoint(ec);
    if (!ec) endpoints.peer = peer;
    return endpoints;
  }

  // The peer as counted and logged: unmapped, or "?" (as transport::peer_address_text).
  std::string peer_text() const {
    return peer ? transport::unmapped(peer->address()).to_string() : "?";
  }
};

}  // namespace gridftp::server
