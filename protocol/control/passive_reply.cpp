#include "protocol/control/passive_reply.hpp"

#include <array>
#include <charconv>
#include <cstddef>

#include "protocol/control/host_port.hpp"
#include "protocol/core/errors.hpp"

namespace gridftp::protocol::control {
namespace {

using protocol::Errc;

constexpr unsigned kMaxPort = 65535;

// Parses a decimal number at the front of `text` and removes it. Fails on no digits or overflow
// past `max`.
bool take_number(std::string_view& text, unsigned max, unsigned& out) {
  const auto* begin = text.data();
  const auto* end = text.data() + text.size();
  const auto [next, ec] = std::from_chars(begin, end, out);
  if (ec != std::errc{} || out > max) {
    return false;
  }
  text.remove_prefix(static_cast<std::size_t>(next - begin));
  return true;
}

bool is_dotted_ipv4(std::string_view host) {
  unsigned octet = 0;
  for (int i = 0; i < 4; ++i) {
    if (!take_number(host, 255, octet)) {
      return false;
    }
    if (i < 3) {
      if (host.empty() || host.front() != '.') {
        return false;
      }
      host.remove_prefix(1);
    }
  }
  return host.empty();
}

}  // namespace

Result<HostPort> parse_pasv_reply(std::string_view text) {
  // RFC 1123 §4.1.2.6: scan for the numbers rather than trusting the parentheses; the numbers
  // themselves are the PORT argument's syntax, parsed by the shared codec.
  const auto first_digit = text.find_first_of("0123456789");
  if (first_digit == std::string_view::npos) {
    return make_error(make_error_code(Errc::BadHostPort));
  }
  text.remove_prefix(first_digit);
  text = text.substr(0, text.find_first_not_of("0123456789,"));
  auto parsed = parse_port_argument(text);
  if (!parsed) {
    return make_error(parsed.error());
  }
  return *parsed;
}

Result<HostPort> parse_epsv_reply(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos || close - open < 5) {
    return make_error(make_error_code(Errc::BadHostPort));
  }
  std::string_view inner = text.substr(open + 1, close - open - 1);
  // RFC 2428 §3: the delimiter is whichever character comes first (normally '|').
  const char delimiter = inner.front();
  std::array<std::string_view, 3> fields;
  inner.remove_prefix(1);
  for (auto& field : fields) {
    const auto end = inner.find(delimiter);
    if (end == std::string_view::npos) {
      return make_error(make_error_code(Errc::BadHostPort));
    }
    field = inner.substr(0, end);
    inner.remove_prefix(end + 1);
  }
  if (!inner.empty()) {
    return make_error(make_error_code(Errc::BadHostPort));
  }
  if (!fields[0].empty() && fields[0] != "1" && fields[0] != "2") {
    return make_error(make_error_code(Errc::UnsupportedAddressFamily));
  }
  unsigned port = 0;
  std::string_view port_text = fields[2];
  if (!take_number(port_text, kMaxPort, port) || !port_text.empty() || port == 0) {
    return make_error(make_error_code(Errc::BadHostPort));
  }
  const bool is_ipv6 = fields[1].find(':') != std::string_view::npos;
  return HostPort{std::string(fields[1]), static_cast<std::uint16_t>(port), is_ipv6};
}

Result<std::string> port_argument_for(const HostPort& address) {
  if (!is_dotted_ipv4(address.address)) {
    return make_error(make_error_code(Errc::BadHostPort));
  }
  return format_port_argument(address);
}

Result<std::string> eprt_argument_for(const HostPort& address) {
  if (address.address.empty()) {
    return make_error(make_error_code(Errc::BadHostPort));
  }
  auto spelled = address;
  spelled.is_ipv6 = address.address.find(':') != std::string::npos;
  return format_eprt_argument(spelled);
}

}  // namespace gridftp::protocol::control
