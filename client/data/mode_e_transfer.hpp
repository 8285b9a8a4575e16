// The data phase of MODE E get and put once the session is in TYPE I and MODE E (docs/WIRE.md §1.5,
// §2.1): who listens, in which order the commands go, and how the control replies and the data
// threads are waited for. Internal to transfer.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "client/report/progress_ticker.hpp"
#include "client/session/session.hpp"
#include "client/storage/local_source.hpp"
#include "client/storage/staged_file.hpp"
#include "client/transfer/restart_state.hpp"
#include "client/transfer/transfer_plan.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::client {

// OPTS RETR Parallelism, PORT/EPRT to our listener, REST `resume` when set, `command`
// (RETR/ERET); blocks land in `staged` at local_offset + their offset, each counted into
// `progress` and, when `written` is set, added to it once on disk (kept even when the transfer
// fails, for -rst). Returns the bytes received after the 226.
struct ModeEReceiveRequest {
  std::string command;
  unsigned streams = 1;
  std::uint64_t local_offset = 0;
  std::optional<std::string> resume;
  protocol::restart::ByteRangeSet* written = nullptr;
};
Result<std::uint64_t> receive_mode_e(Session& session, const StagedFile& staged,
                                     const ModeEReceiveRequest& request, ProgressTicker& progress);

// PASV/EPSV (SPAS with -stripe), ALLO, `command` (STOR/ESTO), then `streams` connections (to each
// stripe) sending the local bytes
// [local_offset, local_offset + length) as wire offsets [0, length). Returns the bytes sent
// after the 226. With `restart` (-rst): the receiver's 111 range markers are kept in its
// dest_ranges, and an attempt that follows a failed one sends REST with them and only the rest.
struct ModeESendRequest {
  std::string command;
  std::optional<std::uint64_t> allocate_bytes;
  unsigned streams = 1;
  std::uint64_t block_size_bytes = 0;
  std::uint64_t local_offset = 0;
  std::uint64_t length = 0;
  ProgressTicker* progress = nullptr;  // counts each block sent; may be null
  RestartState* restart = nullptr;
  // -stripe: SPAS instead of PASV, `streams` connections to each stripe, blocks by its layout.
  std::optional<StripeRequest> stripe;
};
Result<std::uint64_t> send_mode_e(Session& session, const LocalSource& source,
                                  const ModeESendRequest& request);

// The receiver's data addresses: SPAS's list when `striped`, else PASV/EPSV's one address.
Result<std::vector<protocol::control::HostPort>> receiving_stripes(Session& session, bool striped);

// After a data failure the server usually explains it (426, 451); read that reply briefly so
// the user sees it, then report the original error.
std::error_code with_server_reason(Session& session, std::error_code error,
                                   const Session::MarkerCallback& on_marker = {});

// A receiver's 111 range marker (docs/WIRE.md §4.2) goes into restart.dest_ranges, for a -rst
// resume. Returns whether `reply` was one (a malformed one is ignored but still counted).
bool record_range_marker(const ParsedReply& reply, RestartState& restart);

// ALLO is advisory (RFC 959 §4.1.3); servers that refuse or ignore it still take the STOR.
Result<void> send_allocate(Session& session, std::optional<std::uint64_t> size_bytes);

}  // namespace gridftp::client
