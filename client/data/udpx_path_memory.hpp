// What gridcp remembers of each UDPX path (docs/UDPX.md §8): the rate its last long enough
// transfer with a server carried, so that the next one's Startup begins near it instead of at
// target/32 (§2.3). One line per server address in $XDG_CACHE_HOME/gridcp/udpx-paths
// (~/.cache when XDG_CACHE_HOME is unset): "<address> <bit/s> <unix seconds>". A path changes,
// so an entry older than a day is not used; the rate controller corrects a stale one within
// round trips either way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client {

struct PathRate {
  std::string address;
  std::uint64_t bits_per_second = 0;
  std::int64_t unix_seconds = 0;
  friend bool operator==(const PathRate&, const PathRate&) = default;
};

inline constexpr std::int64_t kPathRateLifetimeSeconds = std::int64_t{24} * 3600;

// The file's lines; malformed ones are skipped.
std::vector<PathRate> parse_path_rates(std::string_view text);
std::string format_path_rates(const std::vector<PathRate>& rates);
// `address`'s rate if it was recorded within kPathRateLifetimeSeconds before `now`.
std::optional<std::uint64_t> fresh_path_rate(const std::vector<PathRate>& rates,
                                             std::string_view address, std::int64_t now);
// Replaces `rate.address`'s entry (or adds one).
void update_path_rate(std::vector<PathRate>& rates, PathRate rate);
// The network rate a finished transfer found (file rate over the data phase, raised by the
// loss its retransmissions made up for), or nullopt when it was too short to leave Startup:
// under a second or ten round trips.
std::optional<std::uint64_t> rate_worth_remembering(const NetworkFigures& figures);

// The file's edges: a missing or unreadable file remembers nothing; writing goes through a
// temporary file and a rename, and a failure to write is ignored (it is only a hint).
std::optional<std::uint64_t> remembered_udpx_rate(const std::string& address);
void remember_udpx_rate(const std::string& address, std::uint64_t bits_per_second);

}  // namespace gridftp::client
