// Byte counts, rates and durations as people read them on a progress line ("1.50 GiB",
// "640.0 MiB/s", "1:02:03"). Pure. Machine output (--json) uses plain numbers instead.
#pragma once

#include <cstdint>
#include <string>

#include "client/clock.hpp"

namespace gridftp::client::report {

// Binary units (KiB, MiB, ...), three significant digits from 1 KiB on: "0 B", "1023 B",
// "1.00 KiB", "12.3 MiB", "2.00 GiB".
std::string format_bytes(std::uint64_t bytes);
// format_bytes of the rate plus "/s"; a negative or non-finite rate reads "-".
std::string format_rate(double bytes_per_second);
// "59s", "1:05" (minutes:seconds), "1:02:03" (hours:minutes:seconds); rounded to whole seconds.
std::string format_duration(Clock::duration duration);

}  // namespace gridftp::client::report
