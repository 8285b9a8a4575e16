#include "protocol/control/ascii_codec.hpp"

namespace gridftp::protocol::control {

void encode_network_ascii(std::span<const char> local, std::string& out) {
  for (const char c : local) {
    if (c == '\n') out += '\r';
    out += c;
  }
}

void NetworkAsciiDecoder::decode(std::span<const char> wire, std::string& out) {
  for (const char c : wire) {
    if (pending_cr_) {
      pending_cr_ = false;
      if (c == '\n') {
        out += '\n';
        continue;
      }
      out += '\r';
    }
    if (c == '\r') {
      pending_cr_ = true;
      continue;
    }
    out += c;
  }
}

void NetworkAsciiDecoder::finish(std::string& out) {
  if (pending_cr_) out += '\r';
  pending_cr_ = false;
}

}  // namespace gridftp::protocol::control
