// Error codes of the UDPX packet codec (docs/UDPX.md §1). Every code is caused by a datagram's
// bytes: the engine drops the packet and counts it; none of them reaches the control channel
// except through a CLOSE with code 5 (protocol violation).
#pragma once

#include <system_error>

namespace gridftp::protocol::udpx {

enum class Errc {
  Truncated = 1,   // fewer bytes than the packet's layout needs
  BadVersion,      // version field other than 1
  UnknownType,     // type 11..15 (reserved)
  ReservedBits,    // a reserved header bit or field set
  VarintTooLarge,  // a value above 2^62 - 1 cannot be written as a varint
  BadRangeList,    // NAK with no range, a zero gap, or ranges that overflow
  BufferTooSmall,  // the encoder's output span cannot hold the packet
  TrailingBytes,   // bytes after a body that has no padding
  ClearControl,    // a control packet without the E flag (control bodies are always sealed)
};

const std::error_category& udpx_category();
std::error_code make_error_code(Errc e);

}  // namespace gridftp::protocol::udpx

template <>
struct std::is_error_code_enum<gridftp::protocol::udpx::Errc> : std::true_type {};
