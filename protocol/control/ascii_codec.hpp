// TYPE A conversion (RFC 959 §3.1.1.1): local LF line ends become CR LF on the wire, and CR LF
// from the wire becomes LF. Incremental: a CR at the end of one chunk is held for the next.
#pragma once

#include <span>
#include <string>

namespace gridftp::protocol::control {

// Appends the network form of `local` to `out`.
void encode_network_ascii(std::span<const char> local, std::string& out);

class NetworkAsciiDecoder {
 public:
  // Appends the local form of `wire` to `out`.
  void decode(std::span<const char> wire, std::string& out);
  // Flushes a CR held back at the end of the data.
  void finish(std::string& out);

 private:
  bool pending_cr_ = false;
};

}  // namespace gridftp::protocol::control
