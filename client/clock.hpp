// The one clock the client measures timeouts and transfer rates with.
#pragma once

#include <chrono>

namespace gridftp::client {
using Clock = std::chrono::steady_clock;
}  // namespace gridftp::client
