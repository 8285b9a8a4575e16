#include "protocol/udpx/transfer_figures.hpp"

#include <cstdio>

namespace gridftp::protocol::udpx {

void add_json_fields(JsonObjectWriter& json, const TransferFigures& figures) {
  json.add("udpx_rate_bits_per_second", figures.rate_bps)
      .add("udpx_rtt_ms", figures.rtt_ms)
      .add("udpx_loss", figures.loss)
      .add("udpx_sending_cost", figures.sending_cost)
      .add("udpx_receiving_cost", figures.receiving_cost)
      .add("udpx_dropped", figures.dropped)
      .add("udpx_handshake_seconds", figures.handshake_seconds);
}

std::string describe(const TransferFigures& figures) {
  char line[200];
  std::snprintf(line, sizeof line,
                "rate=%.1fMb/s rtt=%.1fms loss=%.2f%% sending_cost=%.2f%% receiving_cost=%.2f%% "
                "dropped=%llu",
                figures.rate_bps / 1e6, figures.rtt_ms, figures.loss * 100,
                figures.sending_cost * 100, figures.receiving_cost * 100,
                static_cast<unsigned long long>(figures.dropped));
  return line;
}

}  // namespace gridftp::protocol::udpx
