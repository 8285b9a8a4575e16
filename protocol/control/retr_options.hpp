// Arguments of `OPTS RETR` (GFD.20 "OPTS RETR"; docs/WIRE.md §1.4): "Parallelism=4,4,4;",
// "StripeLayout=Blocked;BlockSize=1048576;", "markers=5;". Parsing only; applying the options to
// a session is the server's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

inline constexpr unsigned kMaxParallelism = 64;

struct RetrOptions {
  std::optional<unsigned> parallelism;       // first number of "start,min,max"
  std::optional<std::string> stripe_layout;  // "Blocked" or "Partitioned", canonical spelling
  std::optional<std::uint64_t> block_size;   // bytes, > 0
  std::optional<unsigned> marker_seconds;    // perf-marker period; 0 turns markers off
};

// Parses the text after "RETR ": one or more `key=value;` options, keys case-insensitive, every
// option ending with ';', no spaces. A repeated key keeps the last value (Globus does the same).
//   Parallelism=n[,n[,n]]   each n decimal; only the first is used and must be 1..64
//   StripeLayout=Blocked|Partitioned (case-insensitive)
//   BlockSize=n             decimal, 1..2^64-1
//   markers=n               decimal seconds, fits in unsigned
// Errors: protocol::Errc::BadArgument for an empty argument, a missing ';' or '=', an empty
// option (";;"), an unknown key, or a value outside the rules above.
// Note: Globus 13.24 is laxer: it accepts Parallelism=0, =100, =-1 and "Parallelism=4 ;".
Result<RetrOptions> parse_retr_options(std::string_view text);

}  // namespace gridftp::protocol::control
