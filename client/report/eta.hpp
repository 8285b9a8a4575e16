// Time left for a transfer from what is done, what is expected and the current rate. Pure.
#pragma once

#include <cstdint>
#include <optional>

#include "client/clock.hpp"

namespace gridftp::client::report {

// nullopt when it cannot be known: no expected size, no rate yet, or a rate of zero while bytes
// remain. Zero once `done_bytes` reaches `total_bytes` (a file may outgrow its announced size).
std::optional<Clock::duration> estimate_remaining(std::uint64_t done_bytes,
                                                  std::optional<std::uint64_t> total_bytes,
                                                  std::optional<double> bytes_per_second);

}  // namespace gridftp::client::report
