// Formatting of directory listings: MLSD/MLST fact lines (RFC 3659 §7, with Globus's UNIX.* facts
// as observed in docs/WIRE.md §1.4), `ls -l` style LIST lines, and MDTM times. Pure: no stat(),
// no clock, no time zone; the caller fills FileFacts and passes `now`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::protocol::listing {

enum class FileType { File, Dir, Cdir, Pdir, Symlink, Other };

struct FileFacts {
  std::string name;
  FileType type = FileType::File;
  std::uint64_t size_bytes = 0;
  std::int64_t modify_unix_seconds = 0;
  std::uint32_t mode = 0;  // permission bits & 07777
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string owner;
  std::string group;
  std::uint64_t link_count = 1;
  std::uint64_t device = 0;  // with inode, makes the Unique fact
  std::uint64_t inode = 0;
  bool readable = false;  // as the session sees them, for the Perm fact
  bool writable = false;
};

// Names are written verbatim: callers must leave out names containing CR or LF, which would
// forge extra lines. ';', '=', space and control bytes in owner/group become '_'.
// "Type=file;Modify=20261122013752;Size=2;Perm=adfwr;UNIX.mode=0666;UNIX.owner=u;UNIX.uid=1001;
// UNIX.group=g;UNIX.gid=1001;Unique=fe00-98c00b; a.txt" without CRLF. Symlinks are
// "Type=OS.unix=slink" and other special files "Type=OS.unix=special" (RFC 3659 §7.5.1).
std::string format_mlsx_line(const FileFacts& facts);

// `ls -l` style: "-rw-r--r--   1 owner  group  1234 Nov 22 13:45 name". The time shows
// "Mon DD HH:MM" when less than six months (182.5 days) from `now`, else "Mon DD  YYYY", UTC.
std::string format_list_line(const FileFacts& facts, std::int64_t now_unix_seconds);

// "YYYYMMDDHHMMSS" in UTC (RFC 3659 §2.3); times outside years 0000-9999 are clamped.
std::string format_mdtm(std::int64_t unix_seconds);

// Parses "YYYYMMDDHHMMSS" with an optional ".f..." fraction (dropped) into Unix seconds.
// Errors: Errc::BadArgument for a wrong length, a non-digit, or a date or time that does not
// exist (month 13, Feb 30, Feb 29 outside leap years, hour 24, second 60).
Result<std::int64_t> parse_mdtm(std::string_view text);

// RFC 3659 §7.5.5 Perm fact: files "adfw" if writable then "r" if readable; directories "cdfmp"
// if writable then "el" if readable. Globus writes the subset "awr"; see the unit test.
std::string perm_fact(const FileFacts& facts);

}  // namespace gridftp::protocol::listing
