// -pp for third-party transfers, as globus-url-copy pipelines them (observed with -dbg, GCT 6.2):
// MODE E on both servers, one PASV/PORT pair, then every file's STOR to the dest and RETR to the
// source sent back to back without waiting, the data connections cached at EOD and reused by
// each next file (reply 125, docs/WIRE.md §2.5). Replies are read on two threads, one per server.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "client/session/session.hpp"
#include "client/transfer/transfer.hpp"

namespace gridftp::client {

struct PipelinedFile {
  std::string source_path;
  std::string dest_path;
};

struct PipelineOutcome {
  // files[0, completed) got both 226s, in order; finished_at[i] is when file i's last came.
  std::size_t completed = 0;
  std::vector<Clock::time_point> finished_at;
  // Why files[completed] did not (empty when all did). The sessions are then out of step and
  // must be dropped; the files from `completed` on were not (reliably) copied.
  std::error_code error;
};

// Runs `files` on the two sessions. `primed`: the sessions already hold cached MODE E data
// connections from an earlier call with the same options (no PASV/PORT is sent then).
// `on_dest_marker(index, bytes)` gets the dest's 112 performance markers.
PipelineOutcome run_third_party_pipeline(
    Session& source, Session& dest, const std::vector<PipelinedFile>& files,
    const TransferOptions& options, bool primed,
    const std::function<void(std::size_t index, std::uint64_t bytes)>& on_dest_marker);

}  // namespace gridftp::client
