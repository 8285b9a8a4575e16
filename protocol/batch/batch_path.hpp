// Paths inside a batch (docs/WIRE.md §7.2): relative to the directory the batch copies, '/'
// between components, in the order a depth-first walk with each directory's names sorted by
// bytes visits them. Restart markers name a position in that order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::batch {

inline constexpr std::size_t kMaxPathBytes = 4096;

// True for a path a receiver may create below its batch directory: not empty, at most
// kMaxPathBytes, no leading or trailing '/', no empty, "." or ".." component, no NUL.
bool is_valid_batch_path(std::string_view path);

// <0, 0, >0 as `a` comes before, with or after `b` in batch order: component by component, each
// compared by bytes, a directory's own path before everything inside it.
int compare_batch_paths(std::string_view a, std::string_view b);

// Where a restarted batch begins (BRST <offset> <path>): every file before `path` is held, and
// `path` itself up to `offset` bytes (a file whose size is at most `offset` is skipped whole).
struct RestartPoint {
  std::uint64_t offset = 0;
  std::string path;
};

// Parses "<offset> <path>". Errors: Errc::BadArgument for anything else or an invalid path.
Result<RestartPoint> parse_restart_point(std::string_view argument);
std::string format_restart_point(const RestartPoint& point);

// Where a sender begins a file against a restart point: nullopt to skip the file, else the
// offset to send from.
std::optional<std::uint64_t> resume_offset(const RestartPoint& point, std::string_view path,
                                           std::uint64_t size);

}  // namespace gridftp::protocol::batch
