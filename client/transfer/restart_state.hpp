// -rst: what one attempt at a file leaves for the next, so that a failed file resumes instead of
// starting over (docs/WIRE.md §4.2, §4.3): the bytes the receiver confirmed (111 range markers in
// MODE E, the local partial file's size in stream mode) become a REST before the transfer command.
// The transfers fill it in; the engine keeps it across attempts. The REST rule itself is pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::client {

struct RestartState {
  // This attempt follows a failed one: resume from what the receiver holds.
  bool resume = false;
  // Keep a get's partial temporary file when the attempt fails, for the next attempt.
  bool keep_partial = false;
  // Third-party MODE E: the ranges the destination confirmed in its 111 markers, all attempts.
  protocol::restart::ByteRangeSet dest_ranges;
  // MODE E get: the wire ranges written to the kept partial file, all attempts. Blocks arrive out
  // of order on several streams, so a size says nothing; REST sends this list (docs/WIRE.md §4.3).
  protocol::restart::ByteRangeSet local_ranges;
  // Third-party / put: an earlier attempt's STOR got its 1xx, so what the destination holds under
  // that name was written by this run (STOR truncates), and its size may be resumed from.
  bool dest_store_began = false;
};

// The REST argument that resumes a transfer whose receiver holds `present`: in stream mode the
// length of the run starting at byte 0 ("4980736"), in MODE E the whole range list
// ("0-4980736,5242880-6000000"). nullopt when nothing useful is held (start over).
std::optional<std::string> restart_argument(bool extended_block_mode,
                                            const protocol::restart::ByteRangeSet& present);

}  // namespace gridftp::client
