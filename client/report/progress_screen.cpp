#include "client/report/progress_screen.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "client/report/human_units.hpp"

namespace gridftp::client::report {
namespace {

// Below this many columns a name says nothing useful; the line shows the numbers alone.
constexpr std::size_t kShortestName = 4;
constexpr std::string_view kEllipsis = "...";

std::string percent(std::uint64_t done, std::uint64_t size) {
  if (done >= size) {
    return "100%";
  }
  // Never rounded up to 100% before the end; in doubles, as bytes * 100 could overflow.
  const auto whole = static_cast<int>(static_cast<double>(done) * 100 / static_cast<double>(size));
  return std::to_string(std::min(whole, 99)) + "%";
}

std::string bytes_of(std::uint64_t bytes, const std::optional<std::uint64_t>& size) {
  if (!size) {
    return format_bytes(bytes);
  }
  return format_bytes(bytes) + " / " + format_bytes(*size) + "  " + percent(bytes, *size);
}

std::string rate_and_eta(const std::optional<double>& rate,
                         const std::optional<std::uint64_t>& size,
                         const std::optional<Clock::duration>& remaining) {
  std::string text = rate ? format_rate(*rate) : "- B/s";
  if (size) {
    text += "  ETA " + (remaining ? format_duration(*remaining) : std::string("-"));
  }
  return text;
}

// Keeps the end of a name, where file names differ most.
std::string shorten_name(const std::string& name, std::size_t width) {
  if (name.size() <= width) {
    return name;
  }
  if (width <= kEllipsis.size()) {
    return name.substr(name.size() - width);
  }
  return std::string(kEllipsis) + name.substr(name.size() - (width - kEllipsis.size()));
}

std::string fit(std::string line, std::size_t width) {
  if (line.size() > width) {
    line.resize(width);
  }
  return line;
}

std::string file_line(const TransferRow& row, std::size_t width) {
  const auto details = transfer_details(row);
  constexpr std::size_t kGap = 2;
  if (width < details.size() + kGap + kShortestName) {
    return fit(details, width);
  }
  const auto name_width = width - details.size() - kGap;
  auto name = shorten_name(row.name, name_width);
  name.resize(name_width, ' ');  // aligns the numbers of every row
  return name + std::string(kGap, ' ') + details;
}

}  // namespace

std::string transfer_details(const TransferRow& row) {
  return bytes_of(row.bytes, row.size_bytes) + "  " +
         rate_and_eta(row.bytes_per_second, row.size_bytes, row.remaining) + "  " +
         std::to_string(row.streams) + (row.streams == 1 ? " stream" : " streams");
}

std::string total_line(const TotalRow& total) {
  std::string text = "total: " + std::to_string(total.files_done) + " done";
  if (total.files_failed > 0) {
    text += ", " + std::to_string(total.files_failed) + " failed";
  }
  text += ", " + std::to_string(total.files_active) + " active  ";
  text += bytes_of(total.bytes, total.size_bytes) + "  ";
  text += rate_and_eta(total.bytes_per_second, total.size_bytes, total.remaining);
  return text + "  elapsed " + format_duration(total.elapsed);
}

std::vector<std::string> render_progress(const ProgressSnapshot& snapshot, std::size_t width,
                                         std::size_t max_rows) {
  std::vector<std::string> lines;
  const auto shown = std::min(max_rows, snapshot.active.size());
  for (std::size_t i = 0; i < shown; ++i) {
    lines.push_back(file_line(snapshot.active[i], width));
  }
  if (shown < snapshot.active.size()) {
    lines.push_back(
        fit("... and " + std::to_string(snapshot.active.size() - shown) + " more", width));
  }
  lines.push_back(fit(total_line(snapshot.total), width));
  return lines;
}

}  // namespace gridftp::client::report
