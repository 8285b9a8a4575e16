#include "protocol/control/host_port.hpp"

#include <array>
#include <charconv>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {
namespace {

// A decimal number in [0, max] with nothing else in the text.
bool parse_bounded(std::string_view text, unsigned max, unsigned& out) {
  if (text.empty() || text.size() > 5) return false;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out <= max;
}

bool is_ipv4_text(std::string_view text) {
  unsigned parts = 0;
  while (true) {
    const auto dot = text.find('.');
    unsigned value = 0;
    if (!parse_bounded(text.substr(0, dot), 255, value)) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  return parts == 4;
}

bool is_ipv6_text(std::string_view text) {
  if (text.size() < 2 || text.size() > 45 || text.find(':') == std::string_view::npos) return false;
  for (const char c : text) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
                    c == ':' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<HostPort> parse_port_argument(std::string_view text) {
  std::array<unsigned, 6> numbers{};
  std::size_t index = 0;
  bool more = true;
  while (more) {
    // A seventh field or a trailing comma is as malformed as a missing one.
    if (index == numbers.size()) return make_error(Errc::BadHostPort);
    const auto comma = text.find(',');
    if (!parse_bounded(text.substr(0, comma), 255, numbers[index])) {
      return make_error(Errc::BadHostPort);
    }
    ++index;
    more = comma != std::string_view::npos;
    if (more) text.remove_prefix(comma + 1);
  }
  if (index != numbers.size()) return make_error(Errc::BadHostPort);
  HostPort result;
  result.address = std::to_string(numbers[0]) + "." + std::to_string(numbers[1]) + "." +
                   std::to_string(numbers[2]) + "." + std::to_string(numbers[3]);
  result.port = static_cast<std::uint16_t>(numbers[4] * 256 + numbers[5]);
  if (result.port == 0) return make_error(Errc::BadHostPort);
  return result;
}

Result<HostPort> parse_eprt_argument(std::string_view text) {
  if (text.size() < 7) return make_error(Errc::BadHostPort);
  const char delimiter = text.front();
  if (delimiter < 33 || delimiter > 126 || text.back() != delimiter) {
    return make_error(Errc::BadHostPort);
  }
  text = text.substr(1, text.size() - 2);
  const auto first = text.find(delimiter);
  const auto second = first == std::string_view::npos ? first : text.find(delimiter, first + 1);
  if (second == std::string_view::npos ||
      text.find(delimiter, second + 1) != std::string_view::npos) {
    return make_error(Errc::BadHostPort);
  }
  const auto family = text.substr(0, first);
  const auto address = text.substr(first + 1, second - first - 1);
  unsigned port = 0;
  if (!parse_bounded(text.substr(second + 1), 65535, port) || port == 0) {
    return make_error(Errc::BadHostPort);
  }
  HostPort result{std::string(address), static_cast<std::uint16_t>(port), false};
  if (family == "1") {
    if (!is_ipv4_text(address)) return make_error(Errc::BadHostPort);
    return result;
  }
  if (family == "2") {
    if (!is_ipv6_text(address)) return make_error(Errc::BadHostPort);
    result.is_ipv6 = true;
    return result;
  }
  return make_error(Errc::UnsupportedAddressFamily);
}

std::string format_port_argument(const HostPort& host_port) {
  std::string out;
  for (const char c : host_port.address) out.push_back(c == '.' ? ',' : c);
  out += "," + std::to_string(host_port.port / 256) + "," + std::to_string(host_port.port % 256);
  return out;
}

std::string format_eprt_argument(const HostPort& host_port) {
  return std::string(host_port.is_ipv6 ? "|2|" : "|1|") + host_port.address + "|" +
         std::to_string(host_port.port) + "|";
}

Result<NamedEndpoint> parse_named_endpoint(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return make_error(Errc::BadHostPort);
  unsigned port = 0;
  if (!parse_bounded(text.substr(colon + 1), 65535, port) || port == 0) {
    return make_error(Errc::BadHostPort);
  }
  auto host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) return make_error(Errc::BadHostPort);
  return NamedEndpoint{std::string(host), static_cast<std::uint16_t>(port)};
}

}  // namespace gridftp::protocol::control
