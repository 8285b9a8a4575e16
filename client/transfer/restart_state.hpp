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
  // Stream-mode put: the destination sent 111/112 markers during a STOR (gridftpd does after
  // TREV RESTART). Then only its 111 ranges say what it holds: such a server keeps an unfinished
  // upload under another name, so the size of the file named is no measure.
  bool dest_sends_markers = false;
};

// A resumed stream-mode upload of `length` bytes: how many bytes from the start the destination
// already holds and need not be sent again (REST n + STOR). From its 111 ranges when it sends
// markers, else `dest_size`, the size of the file an earlier STOR of this run wrote (servers
// that write in place: vsftpd, Globus). 0, start over, when this attempt does not resume, when
// nothing useful is held, or when it holds the whole length (a failure after the last byte).
std::uint64_t stream_resume_offset(const RestartState& state,
                                   std::optional<std::uint64_t> dest_size, std::uint64_t length);
// Whether stream_resume_offset needs the destination's size (SIZE) for this attempt.
bool stream_resume_needs_size(const RestartState& state);

// The REST argument that resumes a transfer whose receiver holds `present`: in stream mode the
// length of the run starting at byte 0 ("4980736"), in MODE E the whole range list
// ("0-4980736,5242880-6000000"). nullopt when nothing useful is held (start over).
std::optional<std::string> restart_argument(bool extended_block_mode,
                                            const protocol::restart::ByteRangeSet& present);

}  // namespace gridftp::client
