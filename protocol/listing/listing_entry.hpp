// One directory entry as gridcp prints it, parsed from an MLSD fact line (RFC 3659 §7) or an
// NLST name line (RFC 959). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::listing {

struct ListingEntry {
  std::string name;
  bool is_directory = false;
  bool is_self_or_parent = false;  // Type=cdir / Type=pdir
  std::optional<std::uint64_t> size_bytes;
  std::optional<std::int64_t> modify_seconds;  // Modify fact as Unix time (RFC 3659 §2.3, UTC)

  // The name, with a trailing '/' for directories (globus-url-copy -list prints them so).
  std::string display_name() const;
};

// Parses "fact=value;fact=value; name" (docs/WIRE.md §1.4). Facts are matched case-insensitively;
// the name keeps any spaces. Errors: Errc::BadReply when there is no "; " before a non-empty name
// or a fact lacks '='.
Result<ListingEntry> parse_mlsd_line(std::string_view line);

// Parses an RFC 3659 time-val "YYYYMMDDHHMMSS[.sss]" (UTC) into Unix seconds, dropping the
// fraction; nullopt when malformed or out of range (the MDTM reply and the Modify fact).
std::optional<std::int64_t> parse_time_val(std::string_view text);

// Splits a listing body into lines (LF with any CRs before it), dropping empty lines.
std::vector<std::string_view> split_listing_lines(std::string_view body);

}  // namespace gridftp::protocol::listing
