// One spelling per peer: an IPv4 client reaching a dual-stack socket appears as ::ffff:a.b.c.d,
// and every comparison or count by address (data peer checks, per-address limits, the FTP
// bounce check) must see it as a.b.c.d.
#pragma once

#include "transport/asio.hpp"

namespace gridftp::transport {

inline asio::ip::address unmapped(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  return address;
}

}  // namespace gridftp::transport
