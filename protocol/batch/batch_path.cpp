#include "protocol/batch/batch_path.hpp"

#include <algorithm>
#include <charconv>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::batch {

bool is_valid_batch_path(std::string_view path) {
  if (path.empty() || path.size() > kMaxPathBytes) return false;
  if (path.find('\0') != std::string_view::npos) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = std::min(path.find('/', start), path.size());
    const auto component = path.substr(start, slash - start);
    if (component.empty() || component == "." || component == "..") return false;
    start = slash + 1;
  }
  return true;
}

int compare_batch_paths(std::string_view a, std::string_view b) {
  while (true) {
    const auto a_slash = std::min(a.find('/'), a.size());
    const auto b_slash = std::min(b.find('/'), b.size());
    const int order = a.substr(0, a_slash).compare(b.substr(0, b_slash));
    if (order != 0) return order < 0 ? -1 : 1;
    const bool a_done = a_slash == a.size();
    const bool b_done = b_slash == b.size();
    if (a_done || b_done) return a_done == b_done ? 0 : (a_done ? -1 : 1);
    a.remove_prefix(a_slash + 1);
    b.remove_prefix(b_slash + 1);
  }
}

Result<RestartPoint> parse_restart_point(std::string_view argument) {
  const auto space = argument.find(' ');
  if (space == std::string_view::npos || space == 0) return make_error(protocol::Errc::BadArgument);
  RestartPoint point;
  const auto digits = argument.substr(0, space);
  const auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), point.offset);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return make_error(protocol::Errc::BadArgument);
  }
  point.path = std::string(argument.substr(space + 1));
  if (!is_valid_batch_path(point.path)) return make_error(protocol::Errc::BadArgument);
  return point;
}

std::string format_restart_point(const RestartPoint& point) {
  return std::to_string(point.offset) + " " + point.path;
}

std::optional<std::uint64_t> resume_offset(const RestartPoint& point, std::string_view path,
                                           std::uint64_t size) {
  const int order = compare_batch_paths(path, point.path);
  if (order < 0) return std::nullopt;
  if (order > 0) return 0;
  if (size <= point.offset) return std::nullopt;
  return point.offset;
}

}  // namespace gridftp::protocol::batch
