// What a UDPX transfer measured, as the transfer log, SITE UDPX STAT, gridcp's -vb line and its
// --json all report it (docs/UDPX.md §8): written out in one place so the four agree.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/core/json.hpp"

namespace gridftp::protocol::udpx {

struct TransferFigures {
  std::uint64_t bytes = 0;  // file bytes moved
  double rate_bps = 0;      // effective: file bits per second of the data phase
  double rtt_ms = 0;        // smoothed round-trip time
  double loss = 0;          // sender: DATA the receiver reported lost / DATA sent; receiver: blocks
                            // whose first copy never came before a later one / blocks
  double sending_cost = 0;  // payload sent beyond the file / file
  double receiving_cost = 0;     // duplicate DATA / DATA received
  std::uint64_t dropped = 0;     // datagrams refused: damaged, replayed, foreign
  double handshake_seconds = 0;  // key exchange and HELLO, before the first DATA
};

// "udpx_rate_bits_per_second", "udpx_rtt_ms", ... appended to a JSON record.
void add_json_fields(JsonObjectWriter& json, const TransferFigures& figures);

// "rate=87.3Mb/s rtt=50.4ms loss=1.02% sending_cost=1.10% receiving_cost=0.00% dropped=0".
std::string describe(const TransferFigures& figures);

}  // namespace gridftp::protocol::udpx
