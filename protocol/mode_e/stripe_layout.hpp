// Which bytes of a transfer each stripe moves when a striped server (a frontend with data movers)
// splits it (GFD.20 "OPTS RETR" StripeLayout; docs/WIRE.md §1.4). Pure: the ranges a stripe owns,
// for that stripe's BlockPlanner to cut into blocks.
//   Blocked:     stripe i of N owns the blocks of `block_size` bytes, counted from file offset 0,
//                whose number b has b % N == i (Globus's default layout, 1 MiB blocks unless
//                OPTS RETR BlockSize= says otherwise).
//   Partitioned: stripe i of N owns the i-th of N contiguous pieces of ceil(length / N) bytes of
//                the transfer's range (the last ones shorter or empty).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "protocol/core/result.hpp"
#include "protocol/mode_e/block_planner.hpp"
#include "protocol/restart/byte_range_set.hpp"

namespace gridftp::protocol::mode_e {

struct StripeLayout {
  enum class Kind { Blocked, Partitioned };
  Kind kind = Kind::Blocked;
  std::uint64_t block_size = std::uint64_t{1} << 20;  // Blocked only
};

struct StripePlace {
  unsigned index = 0;  // 0-based
  unsigned count = 1;  // stripes in the transfer, > index
};

// The parts of `transfer` (file offsets [start, end)) that the stripe at `place` moves, in
// ascending order, adjacent parts merged. A Blocked stripe of a large file owns many ranges
// (length / (block_size * count) of them), each a whole block but at the transfer's two ends.
// Errors: Errc::BadBlockSize for a Blocked layout with block_size 0, protocol::Errc::BadArgument
// when place.count is 0 or place.index is not below it.
Result<std::vector<restart::Range>> stripe_ranges(const StripeLayout& layout, StripePlace place,
                                                  restart::Range transfer);

// What the other stripes move of [0, length): the ranges the sender of the stripe at `place`
// skips. Without a layout every byte is stripe 0's, as a striped client that was given no
// block size sends (globus-url-copy -stripe without -sbs). Errors: as stripe_ranges.
Result<restart::ByteRangeSet> outside_stripe(const std::optional<StripeLayout>& layout,
                                             StripePlace place, std::uint64_t length);

// One BlockPlanner per stripe of `count`, each cutting into blocks of at most `block_bytes` its
// stripe's share of [0, length) less what the receiver already holds (`present`). Both MODE E
// senders plan from this: gridftpd after SPOR, gridcp after SPAS. Errors: as outside_stripe and
// BlockPlanner::for_restart.
Result<std::vector<BlockPlanner>> stripe_planners(const std::optional<StripeLayout>& layout,
                                                  unsigned count, std::uint64_t length,
                                                  const restart::ByteRangeSet& present,
                                                  std::uint64_t block_bytes);

}  // namespace gridftp::protocol::mode_e
