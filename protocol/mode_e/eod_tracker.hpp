// Receiver-side EOD accounting for one transfer to one receiver stripe (GFD.20; docs/WIRE.md §2.3):
// the transfer is complete when an EOF has announced N and N EODs have arrived, whichever comes
// first. It counts events from every connection's BlockDecoder; it reads no bytes itself.
#pragma once

#include <cstdint>
#include <optional>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::mode_e {

class EodTracker {
 public:
  // One connection reported Eod (including the Eod that follows a 0x48 header's Eof).
  // Errors: Errc::TooManyEods when the EOF count is known and is now exceeded.
  Result<void> on_eod();

  // A connection reported Eof announcing `expected` EODs. A repeat with the same count is
  // accepted (idempotent).
  // Errors: Errc::ConflictingEofCount  an earlier EOF announced a different count
  //         Errc::TooManyEods          more EODs already arrived than `expected`
  //         Errc::DataAfterLastEod     `expected` is 0 although data was already reported
  Result<void> on_eof(std::uint64_t expected);

  // A connection reported a non-empty Data event for this transfer.
  // Errors: Errc::DataAfterLastEod when every announced connection has already ended (this
  // includes an EOF count of 0).
  Result<void> on_data();

  // True iff an EOF was seen and exactly that many EODs arrived.
  bool is_complete() const { return expected_.has_value() && eods_received_ == *expected_; }

  std::uint64_t eods_received() const { return eods_received_; }
  std::optional<std::uint64_t> eods_expected() const { return expected_; }

 private:
  std::uint64_t eods_received_ = 0;
  std::optional<std::uint64_t> expected_;
  bool saw_data_ = false;
};

}  // namespace gridftp::protocol::mode_e
