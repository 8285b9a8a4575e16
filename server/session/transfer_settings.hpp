// What the client has set for its next transfers (TYPE, MODE, REST, BRST, ALLO, ESTO, OPTS RETR,
// TREV), with the rules for when each is used up. Plain values, no I/O; not the data channel's
// addresses (DataChannel), security (ControlSecurity) nor the working directory
// (NamespaceCommands).
#pragma once

#include <cstdint>
#include <optional>

#include "protocol/batch/batch_path.hpp"
#include "protocol/mode_e/stripe_layout.hpp"
#include "protocol/mode_e/stripe_share.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::server {

struct TransferSettings {
  bool ascii = true;  // RFC 959 default is TYPE A
  bool mode_e = false;
  unsigned parallelism = 1;  // OPTS RETR Parallelism, streams per stripe we open
  // OPTS RETR StripeLayout and BlockSize: how a send after SPOR spreads its blocks over the
  // receiving stripes (GFD.20). Until a client names one, Globus's server default: Blocked, 1 MiB.
  protocol::mode_e::StripeLayout stripe_layout;
  // A mover's part in a striped transfer (SITE STRIPE, docs/STRIPING.md). `stripe_share`: the
  // receiving stripes its next sends serve, its SPOR addresses being theirs in that order.
  // `stripe_part`: the next STOR writes its stripe into the upload's shared partial file.
  std::optional<protocol::mode_e::StripeShare> stripe_share;
  bool stripe_part = false;
  unsigned marker_seconds = 5;  // TREV PERF/RESTART: 111/112 period while receiving
  // TREV RESTART: the client resumes failed uploads from 111 markers, so stream-mode STORs
  // send them too and keep their partial file on failure (MODE E always does both).
  bool restart_markers = false;
  std::uint64_t esto_offset = 0;
  std::optional<std::uint64_t> allocated_bytes;  // ALLO: the size the client announced
  std::uint64_t restart_offset = 0;              // stream-mode REST
  std::optional<protocol::restart::ByteRangeSet> restart_ranges;  // MODE E REST range list
  std::optional<protocol::batch::RestartPoint> batch_restart;     // BRST, for the next BRET

  // REST takes one form at a time: an offset forgets a range list and a range list the offset.
  void restart_at(std::uint64_t offset);
  void restart_with(protocol::restart::ByteRangeSet ranges);
  // A transfer command uses REST and ALLO up, whether or not the transfer then succeeds.
  std::uint64_t take_restart_offset();
  std::optional<protocol::restart::ByteRangeSet> take_restart_ranges();
  std::optional<std::uint64_t> take_allocated_bytes();
  // "ASCII" or "BINARY", as the 150 reply and STAT name the type.
  const char* type_name() const { return ascii ? "ASCII" : "BINARY"; }
};

}  // namespace gridftp::server
