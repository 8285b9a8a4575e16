// The bytes that replace the live display on an ANSI terminal: move the cursor up over the lines
// drawn last time, erase to the end of the screen, write the new lines. Pure (ECMA-48 CUU and
// ED sequences); TerminalProgress writes the result in one write(2).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gridftp::client::report {

// Moves back over `drawn_lines` lines (each ended with '\n', the cursor left at the start of the
// line below them) and erases them; empty when nothing was drawn.
std::string erase_frame(std::size_t drawn_lines);
// erase_frame, then each line followed by '\n'.
std::string redraw_frame(std::size_t drawn_lines, const std::vector<std::string>& lines);

}  // namespace gridftp::client::report
