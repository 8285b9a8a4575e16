// gridftpd's server metrics as one flat array of counters (docs/METRICS.md): the index of every
// labelled series, and their text exposition in the Prometheus format that `promtool check
// metrics` reads. The array lives wherever the caller keeps it (a page shared by session
// processes); this header only knows its layout. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gridftp::protocol::metrics {

enum class LoginMethod : std::uint8_t { Anonymous, Password, Gsi };
enum class Outcome : std::uint8_t { Ok, Failed };
// Sent: the server sends file or listing bytes (RETR, ERET, LIST, ...); Received: STOR, ESTO, APPE.
enum class Direction : std::uint8_t { Sent, Received };
enum class DataMode : std::uint8_t { Stream, ExtendedBlock, Udpx };
// The data channel's protection: none, authenticated only (DCAU, PROT C), integrity (PROT S),
// private (PROT P, over GSI or FTPS).
enum class SecurityLevel : std::uint8_t { None, Authenticated, Integrity, Private };

inline constexpr std::size_t kLoginMethods = 3, kOutcomes = 2, kDirections = 2, kModes = 3,
                             kLevels = 4;
// Per-stream throughput buckets, bytes/s (upper bounds; +Inf follows).
inline constexpr std::array<double, 8> kThroughputBuckets{1e5, 1e6, 1e7, 5e7, 1e8, 5e8, 1e9, 1e10};
inline constexpr int kFirstReplyCode = 400, kLastReplyCode = 599;

namespace cell {
inline constexpr std::size_t kSessionsStarted = 0;
inline constexpr std::size_t kSessionsEnded = 1;
inline constexpr std::size_t kLogins = 2;
inline constexpr std::size_t kTransfers = kLogins + kLoginMethods * kOutcomes;
inline constexpr std::size_t kBytes = kTransfers + kDirections * kModes * kLevels * kOutcomes;
inline constexpr std::size_t kThroughput = kBytes + kDirections * kModes * kLevels;
inline constexpr std::size_t kThroughputSum = kThroughput + kThroughputBuckets.size() + 1;
inline constexpr std::size_t kThroughputCount = kThroughputSum + 1;
inline constexpr std::size_t kReplies = kThroughputCount + 1;
inline constexpr std::size_t kUdpxExtraBytesSent =
    kReplies + (kLastReplyCode - kFirstReplyCode + 1);
inline constexpr std::size_t kUdpxDuplicateBytes = kUdpxExtraBytesSent + 1;
inline constexpr std::size_t kUdpxDroppedDatagrams = kUdpxDuplicateBytes + 1;
inline constexpr std::size_t kCount = kUdpxDroppedDatagrams + 1;
}  // namespace cell

using Snapshot = std::array<std::uint64_t, cell::kCount>;

std::size_t login_cell(LoginMethod method, Outcome outcome);
std::size_t transfer_cell(Direction direction, DataMode mode, SecurityLevel level, Outcome outcome);
std::size_t bytes_cell(Direction direction, DataMode mode, SecurityLevel level);
// The bucket a per-stream throughput falls in (the +Inf bucket past the last bound).
std::size_t throughput_cell(double bytes_per_second);
// Replies outside 400..599 are not counted: nullopt-like kCount.
std::size_t reply_cell(int code);

// A transfer record's security label ("dcau=A prot=P", "ftps prot=P", "none") as a level.
SecurityLevel security_level_of(std::string_view label);
// The direction of a transfer-log command (RETR, STOR, MLSD, ...).
Direction direction_of(std::string_view command);

// The exposition text: HELP and TYPE for every family, every series (zeros included, so a
// scrape always shows the whole set), histogram buckets cumulative.
std::string format_exposition(const Snapshot& cells);

}  // namespace gridftp::protocol::metrics
