// Globus's path restrictions (`-restrict-paths` / `restrict_paths`, docs/GLOBUS.md §3): a list of
// trees, each readable, writable or denied, that limits which absolute paths a session may touch
// without changing how paths are spelled ("/" stays the real root). Pure: the caller gives the
// session's home and user name for `~`, `$HOME` and `$USER`, and the normalized path to judge.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::control {

struct PathRule {
  std::string path;      // normalized absolute path, or an fnmatch pattern when `pattern`
  bool read = false;     // R: RETR, CKSM
  bool write = false;    // W: STOR, MKD, RMD, DELE, RNFR/RNTO, MFMT
  bool denied = false;   // N: nothing in the tree, whatever else the prefix says
  bool pattern = false;  // has * ? or [: matched against the whole path
};

// What a session may do at one path. Every allowed entry may be listed; a directory above an
// allowed entry may be listed too, but shows only the entries that lead to allowed trees.
struct PathRights {
  bool list = false;
  bool read = false;
  bool write = false;
  bool filtered = false;  // listable only as a way to allowed trees below it
};

// The session-independent syntax check of a restrict_paths value: comma-separated entries,
// no spaces around commas, each `[RWN]*` then a path starting with / ~ $ * ? or [.
// Errors name the bad entry (Errc::BadArgument with `why` filled).
Result<void> check_restrict_paths(std::string_view spec, std::string& why);

// The rules for one session: `~` becomes `home`, `$HOME` and `$USER` are replaced, %XX decoded.
// Errors as check_restrict_paths.
Result<std::vector<PathRule>> parse_restrict_paths(std::string_view spec, std::string_view home,
                                                   std::string_view user, std::string& why);

class PathRules {
 public:
  PathRules() = default;  // no restriction: everything allowed, the kernel decides
  explicit PathRules(std::vector<PathRule> rules);

  bool restricted() const { return !rules_.empty(); }
  // `path` is normalized and absolute. The most specific rule decides: plain trees, deepest
  // first, then patterns.
  PathRights rights(std::string_view path) const;
  // For a filtered listing of `directory`: whether its entry `name` is shown.
  bool shows(std::string_view directory, std::string_view name) const;

 private:
  std::vector<PathRule> rules_;  // in matching order
};

}  // namespace gridftp::protocol::control
