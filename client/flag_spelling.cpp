#include "client/flag_spelling.hpp"

#include <algorithm>
#include <array>

#include "protocol/core/long_options.hpp"

namespace gridftp::client {
namespace {

// globus-url-copy's multi-letter flags that gridcp accepts (guc -help, GCT 6.2).
constexpr std::array<std::string_view, 53> kLongFlags{
    "vb",
    "verbose",
    "quiet",
    "dbg",
    "debugftp",
    "list",
    "cd",
    "create-dest",
    "parallel",
    "tcp-bs",
    "tcp-buffer-size",
    "bs",
    "block-size",
    "recurse",
    "help",
    "usage",
    "version",
    "stall-timeout",
    "st",
    "off",
    "partial-offset",
    "len",
    "partial-length",
    "verify-checksum",
    "checksum-alg",
    "nodcau",
    "no-data-channel-authentication",
    "dcsafe",
    "data-channel-safe",
    "dcpriv",
    "data-channel-private",
    // The multi-file engine's flags.
    "cc",
    "concurrency",
    "pp",
    "pipeline",
    "no-batch",
    "sync",
    "sync-level",
    "rst",
    "restart",
    "rst-retries",
    "rst-interval",
    "rst-timeout",
    "continue-on-error",
    "dp",
    "delayed-pasv",
    "fast",
    // gridcp's own, spelled either way like the rest so scripts need not care.
    "json",
    "no-progress",
    "udp",
    "rate",
    "min-rate",
    "policy",
};
}  // namespace

bool is_single_dash_long_flag(std::string_view name) {
  return std::find(kLongFlags.begin(), kLongFlags.end(), name) != kLongFlags.end();
}

std::vector<std::string> normalize_flag_spelling(const std::vector<std::string_view>& arguments) {
  return normalize_long_options(arguments, kLongFlags);
}

}  // namespace gridftp::client
