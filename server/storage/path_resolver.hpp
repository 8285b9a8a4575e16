// The one place that turns a user's virtual path into an open file descriptor. The kernel
// enforces the root: every lookup is openat2(RESOLVE_BENEATH) from the root directory, so "..",
// absolute symlinks and symlinks that climb out fail with EXDEV instead of escaping.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"
#include "server/storage/unique_fd.hpp"

namespace gridftp::server::storage {

class PathResolver {
 public:
  // Opens the root directory. Errors: errno from open(2).
  static Result<PathResolver> open_root(const std::filesystem::path& root);

  // `virtual_path` is normalized ("/" or "/a/b"). `flags` are open(2) flags; symlinks are followed
  // only while they stay beneath the root. Errors: errno (EXDEV/ELOOP mean an escape attempt).
  Result<UniqueFd> open(std::string_view virtual_path, int flags, unsigned mode = 0) const;
  // The directory holding the last component, opened O_PATH|O_DIRECTORY, for *at(2) calls.
  Result<UniqueFd> open_parent(std::string_view virtual_path) const;
  // The root-relative real location of an open descriptor ("/" for the root itself), so callers
  // can check areas against where a path truly leads rather than how it was spelled.
  Result<std::string> real_virtual_path(int fd) const;

  int root_fd() const { return root_fd_.get(); }

 private:
  PathResolver(UniqueFd root_fd, std::string root_real)
      : root_fd_(std::move(root_fd)), root_real_(std::move(root_real)) {}
  UniqueFd root_fd_;
  std::string root_real_;
};

}  // namespace gridftp::server::storage
