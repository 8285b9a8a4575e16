#include "protocol/udpx/udpx_errors.hpp"

#include <string>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::udpx {
namespace {

class UdpxCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.udpx"; }

  std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::Truncated:
        return "UDPX packet truncated";
      case Errc::BadVersion:
        return "UDPX packet of another version";
      case Errc::UnknownType:
        return "UDPX packet of a reserved type";
      case Errc::ReservedBits:
        return "UDPX packet with reserved bits set";
      case Errc::VarintTooLarge:
        return "value too large for a UDPX varint";
      case Errc::BadRangeList:
        return "malformed UDPX NAK range list";
      case Errc::BufferTooSmall:
        return "UDPX packet does not fit its buffer";
      case Errc::TrailingBytes:
        return "bytes after the end of a UDPX packet body";
      case Errc::ClearControl:
        return "UDPX control packet not marked encrypted";
    }
    return "unknown UDPX error";
  }

  // A peer that sends malformed packets fails the transfer (451); the session goes on. An
  // encoder given too small a buffer or too large a value is our own bug.
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<Errc>(value)) {
      case Errc::VarintTooLarge:
      case Errc::BufferTooSmall:
        return Condition::LocalError;
      default:
        return Condition::TransferFailed;
    }
  }
};

}  // namespace

const std::error_category& udpx_category() {
  static const UdpxCategory category;
  return category;
}

std::error_code make_error_code(Errc e) { return {static_cast<int>(e), udpx_category()}; }

}  // namespace gridftp::protocol::udpx
