// The markers a striping frontend gives its client (docs/STRIPING.md): each mover reports its
// own stripe as an unstriped server would ("111 Range Marker ..." of what it holds, "112 Perf
// Marker" with Stripe Index 0 of 1); the client must see one transfer. 111 markers become the
// union of every mover's ranges and of what the client said it held (REST), so a restart sends
// only what no mover has; 112 markers keep the mover's bytes and get its stripe's index and the
// stripe count (GFD.20 §4: one perf marker per stripe).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::protocol::restart {

class StripedMarkers {
 public:
  // `present`: the REST ranges of this transfer, already at the receiver.
  StripedMarkers(unsigned stripes, ByteRangeSet present);

  // A mover's 111 reply line ("111 Range Marker a-b,..."): the union's marker text to relay
  // when it grew, nullopt when the mover told nothing new or the line does not parse.
  std::optional<std::string> on_range_marker(std::string_view line);
  // A mover's 112 lines for `stripe`: the relayed marker's lines, nullopt when they name no
  // byte count. `timestamp_tenths`: now, in tenths of a second since the epoch.
  std::optional<std::vector<std::string>> on_perf_marker(unsigned stripe,
                                                         const std::vector<std::string>& lines,
                                                         std::int64_t timestamp_tenths);
  const ByteRangeSet& held() const { return held_; }
  // Bytes the movers reported moving, all stripes together (STAT during the transfer).
  std::uint64_t stripe_bytes() const;

 private:
  ByteRangeSet held_;
  std::vector<std::uint64_t> bytes_;  // per stripe, from its last 112
};

}  // namespace gridftp::protocol::restart
