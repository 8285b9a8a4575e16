// Receive-side bookkeeping of one MODE E transfer across all its data connections (GFD.20;
// docs/WIRE.md §2.3): EOD/EOF counting (EodTracker), the byte ranges that arrived, the connection
// limit, and what a connection closing early means. Pure and single-threaded: the receiver
// serialises calls. Decoding bytes is BlockDecoder's job; writing them is the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "protocol/core/result.hpp"
#include "protocol/mode_e/block_decoder.hpp"
#include "protocol/mode_e/eod_tracker.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::protocol::mode_e {

class ReceiveAccounting {
 public:
  explicit ReceiveAccounting(std::size_t max_connections) : max_connections_(max_connections) {}

  // A sender connected. Errors: Errc::TooManyConnections beyond max_connections.
  Result<void> on_connection_opened();
  // Errors: those of EodTracker::on_data.
  Result<void> on_data(std::uint64_t offset, std::uint64_t length);
  // Errors: those of EodTracker::on_eod / on_eof.
  Result<void> on_eod();
  Result<void> on_eof(std::uint64_t expected_eods);
  // The peer closed a connection. Fine after that connection's EOD or once the transfer is
  // complete. Errors: Errc::IncompleteTransfer otherwise.
  Result<void> on_connection_closed(bool saw_eod) const;

  // EOF seen and as many EODs as it announced (EodTracker::is_complete).
  bool is_complete() const { return tracker_.is_complete(); }
  std::uint64_t bytes_received() const { return received_.covered_bytes(); }
  // After completion: the data must be [0, n) without holes (a file or an ERET window).
  // Returns n. Errors: Errc::IncompleteTransfer when bytes are missing or the transfer is not
  // complete.
  Result<std::uint64_t> contiguous_length() const;

 private:
  protocol::mode_e::EodTracker tracker_;
  protocol::restart::ByteRangeSet received_;
  std::size_t max_connections_;
  std::size_t connections_ = 0;
};

// Runs `input` through `decoder` until it needs more bytes, handing each Data, Eod, Eof and Close
// event to `on_event` (see BlockDecoder for their order). Stops at the first error, the
// decoder's or the handler's.
Result<void> for_each_event(
    protocol::mode_e::BlockDecoder& decoder, std::span<const char> input,
    const std::function<Result<void>(const protocol::mode_e::DecoderEvent&)>& on_event);

}  // namespace gridftp::protocol::mode_e
