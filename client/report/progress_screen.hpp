// Renders a ProgressSnapshot as the text lines of the live display: one line per file in flight
// (name, bytes of size, percent, rate, ETA, streams) and a total line, each fitted to a terminal
// width. Pure: no escape sequences here; TerminalProgress moves the cursor.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "client/report/progress_board.hpp"

namespace gridftp::client::report {

// At most `max_rows` file lines (then "... and N more"), then the total line. No line is longer
// than `width` bytes (names are shortened first, then the line is cut).
std::vector<std::string> render_progress(const ProgressSnapshot& snapshot, std::size_t width,
                                         std::size_t max_rows);

// The parts of one file line after its name: "1.20 GiB / 2.00 GiB  60%  640 MiB/s  ETA 1s  4
// streams".
std::string transfer_details(const TransferRow& row);
// The total line:
// "total: 2 done, 1 active  3.20 GiB / 4.00 GiB  80%  1.10 GiB/s  ETA 5s  elapsed 0:12".
std::string total_line(const TotalRow& total);

}  // namespace gridftp::client::report
