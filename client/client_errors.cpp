#include "client/client_errors.hpp"

#include <string>

#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

class ClientCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridcp-transfer"; }
  std::string message(int value) const override {
    switch (static_cast<ClientErrc>(value)) {
      case ClientErrc::ChecksumMismatch:
        return "checksum mismatch between source and destination";
      case ClientErrc::ChecksumUnavailable:
        return "the server gave no usable checksum";
      case ClientErrc::UnknownSize:
        return "-off without -len needs the file size, which is unknown";
      case ClientErrc::Cancelled:
        return "cancelled after the other side failed";
      case ClientErrc::DataPeerMismatch:
        return "the data connection's peer does not hold our identity (DCAU A)";
      case ClientErrc::UdpxNeedsDcau:
        return "-udp needs gsiftp:// with data channel authentication (UDPX keys come from "
               "it); --udp-unauthenticated takes keys nobody authenticated instead";
      case ClientErrc::UdpxFailed:
        return "the UDPX transfer failed";
    }
    return "unknown client error";
  }
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<ClientErrc>(value)) {
      case ClientErrc::Cancelled:
        return Condition::TransferAborted;
      case ClientErrc::DataPeerMismatch:
        return Condition::UnexpectedDataPeer;
      case ClientErrc::UdpxFailed:
        return Condition::TransferAborted;
      default:
        return {value, *this};
    }
  }
};

}  // namespace

const std::error_category& client_category() {
  static const ClientCategory category;
  return category;
}

std::error_code make_error_code(ClientErrc e) { return {static_cast<int>(e), client_category()}; }

}  // namespace gridftp::client
