// The gridmap file (docs/WIRE.md §5.5, after Globus gss_assist/gridmap.c): which Grid identities
// may log in as which local accounts. Parsing is pure; matching uses same_identity().
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::security {

struct GridmapEntry {
  std::string dn;                     // unescaped, in X509_NAME_oneline form (\xHH for bytes
                                      // outside printable ASCII, as Globus stores it)
  std::vector<std::string> accounts;  // never empty; the first is the default
};

class Gridmap {
 public:
  Gridmap() = default;
  explicit Gridmap(std::vector<GridmapEntry> entries) : entries_(std::move(entries)) {}

  // The first account of the first line whose DN matches `dn`, as for USER :globus-mapping:.
  std::optional<std::string> default_account(std::string_view dn) const;

  // True when the first line matching `dn` lists `account` (exact, case-sensitive). Like Globus,
  // later lines for the same DN are not consulted.
  bool allows(std::string_view dn, std::string_view account) const;

  const std::vector<GridmapEntry>& entries() const { return entries_; }

 private:
  const GridmapEntry* find(std::string_view dn) const;

  std::vector<GridmapEntry> entries_;
};

// A gridmap of many thousand users stays far below this.
inline constexpr std::size_t kMaxGridmapFileBytes = std::size_t{16} << 20;

// One entry per line: a DN, double-quoted when it contains white space, with the escapes \\ \"
// and \xHH (any other escaped character stands for itself); white space; then accounts separated
// by commas. Text after the account list and after a '#' outside quotes is ignored, as are blank
// lines; empty accounts (",,") are skipped. Stricter than Globus, which skips bad lines: any bad
// line fails the whole file, so a typo never silently locks a user out.
// Errors: Errc::MalformedGridmap (missing closing quote, a DN with no account, an empty DN, a NUL
// byte). The second form writes "line N: <what is wrong>" into `message`.
Result<Gridmap> parse_gridmap(std::string_view text);
Result<Gridmap> parse_gridmap(std::string_view text, std::string& message);

// Reads (public, at most kMaxGridmapFileBytes) and parses. Errors: as read_local_file() and
// parse_gridmap(); `message` starts with the path.
Result<Gridmap> load_gridmap(const std::filesystem::path& path);
Result<Gridmap> load_gridmap(const std::filesystem::path& path, std::string& message);

}  // namespace gridftp::security
