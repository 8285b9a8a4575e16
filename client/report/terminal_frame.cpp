#include "client/report/terminal_frame.hpp"

namespace gridftp::client::report {

std::string erase_frame(std::size_t drawn_lines) {
  if (drawn_lines == 0) {
    return {};
  }
  // CR first: a line cut short by a resize may have left the cursor mid-line.
  return "\r\x1b[" + std::to_string(drawn_lines) + "A\x1b[J";
}

std::string redraw_frame(std::size_t drawn_lines, const std::vector<std::string>& lines) {
  auto frame = erase_frame(drawn_lines);
  for (const auto& line : lines) {
    frame += line;
    frame += '\n';
  }
  return frame;
}

}  // namespace gridftp::client::report
