// One directory entry as gridcp prints it, parsed from an MLSD fact line (RFC 3659 §7) or an
// NLST name line (RFC 959). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::client {

struct ListingEntry {
  std::string name;
  bool is_directory = false;
  bool is_self_or_parent = false;  // Type=cdir / Type=pdir
  std::optional<std::uint64_t> size_bytes;

  // The name, with a trailing '/' for directories (globus-url-copy -list prints them so).
  std::string display_name() const;
};

// Parses "fact=value;fact=value; name" (wire doc §1.4). Facts are matched case-insensitively;
// the name keeps any spaces. Errors: Errc::BadReply when there is no "; " before a non-empty name
// or a fact lacks '='.
Result<ListingEntry> parse_mlsd_line(std::string_view line);

// Splits a listing body into lines (LF with any CRs before it), dropping empty lines.
std::vector<std::string_view> split_listing_lines(std::string_view body);

}  // namespace gridftp::client
