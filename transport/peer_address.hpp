// One spelling per peer: an IPv4 client reaching a dual-stack socket appears as ::ffff:a.b.c.d,
// and every comparison or count by address (data peer checks, per-address limits, the FTP
// bounce check) must see it as a.b.c.d.
#pragma once

#include <string>

#include "transport/asio.hpp"

namespace gridftp::transport {

inline asio::ip::address unmapped(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  return address;
}

// The peer of a connected socket as counted and logged: unmapped, or "?" when the socket has no
// peer any more (it went away between accept and this call).
inline std::string peer_address_text(const asio::ip::tcp::socket& socket) {
  boost::system::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  return ec ? "?" : unmapped(peer.address()).to_string();
}

}  // namespace gridftp::transport
