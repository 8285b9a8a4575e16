// The text gridcp prints for each finished file when no live display owns the screen. -v and -vb
// keep globus-url-copy's wording ("Source: …", "Dest: …", "N bytes X MB/sec avg"); without them
// gridcp prints one summary line; -q prints nothing. Pure.
#pragma once

#include <string>

#include "client/transfer/transfer_observer.hpp"

namespace gridftp::client::report {

enum class LineStyle {
  Quiet,         // -q: nothing for files that were copied or skipped
  Summary,       // default: "copied SRC -> DST: 2.00 GiB in 3s (640 MiB/s)"
  Verbose,       // -v: "Source: SRC\nDest:   DST"
  VerboseBytes,  // -vb: -v's lines plus "  2147483648 bytes     640.00 MB/sec avg"
};

// The lines (each ending in '\n') for one file; empty when the style prints nothing. A failed
// file prints nothing here: gridcp reports failures on stderr.
std::string file_report_text(const FileStart& start, const FileEnd& end, LineStyle style);

}  // namespace gridftp::client::report
