#include "protocol/control/virtual_path.hpp"

#include <vector>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {

Result<std::string> resolve_virtual_path(std::string_view cwd, std::string_view path) {
  if (path.find('\0') != std::string_view::npos || cwd.find('\0') != std::string_view::npos) {
    return make_error(Errc::BadArgument);
  }
  std::vector<std::string_view> parts;
  auto fold = [&parts](std::string_view text) -> bool {
    while (!text.empty()) {
      const auto slash = text.find('/');
      const auto part = text.substr(0, slash);
      text = slash == std::string_view::npos ? std::string_view() : text.substr(slash + 1);
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (parts.empty()) return false;
        parts.pop_back();
        continue;
      }
      parts.push_back(part);
    }
    return true;
  };
  if (path.empty() || path.front() != '/') {
    if (!fold(cwd)) return make_error(Errc::PathEscapesRoot);
  }
  if (!fold(path)) return make_error(Errc::PathEscapesRoot);
  if (parts.empty()) return std::string("/");
  std::string out;
  for (const auto part : parts) {
    out += '/';
    out += part;
  }
  return out;
}

Result<std::string> resolve_client_path(std::string_view cwd, std::string_view home,
                                        std::string_view path) {
  if (path == "~") return resolve_virtual_path(home, ".");
  if (path.starts_with("~/")) return resolve_virtual_path(home, path.substr(2));
  return resolve_virtual_path(cwd, path);
}

bool is_within(std::string_view path, std::string_view area) {
  if (area == "/") return true;
  if (path.size() < area.size() || path.substr(0, area.size()) != area) return false;
  return path.size() == area.size() || path[area.size()] == '/';
}

std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view parent_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace gridftp::protocol::control
