#include "client/url.hpp"

#include <array>
#include <charconv>
#include <utility>

#include "protocol/core/errors.hpp"
#include "protocol/core/hex.hpp"

namespace gridftp::client {
namespace {

using protocol::Errc;

struct SchemeRow {
  std::string_view prefix;
  Scheme scheme;
  std::uint16_t default_port;
};

constexpr std::array kSchemes{
    SchemeRow{"ftp://", Scheme::Ftp, kFtpDefaultPort},
    SchemeRow{"gsiftp://", Scheme::GsiFtp, kGsiFtpDefaultPort},
    // RFC 4217 explicit FTPS uses port 21 as well; only the scheme tells us to AUTH TLS.
    SchemeRow{"ftps://", Scheme::Ftps, kFtpDefaultPort},
};

Unexpected bad_argument() { return make_error(make_error_code(Errc::BadArgument)); }

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) {
    return false;
  }
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const auto lower = static_cast<char>(text[i] | 0x20);
    if (text[i] != prefix[i] && lower != prefix[i]) {
      return false;
    }
  }
  return true;
}

Result<void> parse_port(std::string_view text, std::uint16_t& port) {
  unsigned value = 0;
  const auto [next, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || next != text.data() + text.size() || value == 0 ||
      value > 65535) {
    return bad_argument();
  }
  port = static_cast<std::uint16_t>(value);
  return {};
}

// What may stand between brackets (RFC 3986 §3.2.2 IP-literal, without zone IDs): hex digits,
// colons and the dots of an embedded IPv4 address, with at least one colon. A host that is not
// one would lose its brackets in origin() and no longer parse.
bool is_ipv6_literal(std::string_view text) {
  return text.find(':') != std::string_view::npos &&
         text.find_first_not_of("0123456789abcdefABCDEF:.") == std::string_view::npos;
}

// Splits "host", "host:port", "[v6]" or "[v6]:port" into the URL.
Result<void> parse_host_port(std::string_view text, Url& url) {
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || !is_ipv6_literal(text.substr(1, close - 1))) {
      return bad_argument();
    }
    url.host = std::string(text.substr(1, close - 1));
    const auto after = text.substr(close + 1);
    if (!after.empty() && after.front() != ':') {
      return bad_argument();
    }
    if (after.empty()) {
      return {};
    }
    return parse_port(after.substr(1), url.port);
  }
  const auto colon = text.find(':');
  url.host = std::string(text.substr(0, colon));
  if (url.host.empty() || url.host.find_first_of("[]") != std::string::npos) {
    return bad_argument();
  }
  if (colon == std::string_view::npos) {
    return {};
  }
  return parse_port(text.substr(colon + 1), url.port);
}

Result<void> parse_user_info(std::string_view text, Url& url) {
  const auto colon = text.find(':');
  auto user = percent_decode(text.substr(0, colon));
  if (!user) {
    return make_error(user.error());
  }
  url.user = std::move(*user);
  url.has_user = true;
  if (colon != std::string_view::npos) {
    auto password = percent_decode(text.substr(colon + 1));
    if (!password) {
      return make_error(password.error());
    }
    url.password = std::move(*password);
  }
  return {};
}

Result<Url> parse_remote(std::string_view rest, const SchemeRow& row) {
  Url url;
  url.scheme = row.scheme;
  url.port = row.default_port;
  const auto slash = rest.find('/');
  auto authority = rest.substr(0, slash);
  // The last '@' separates credentials; an unescaped '@' in a password is common enough.
  const auto at = authority.rfind('@');
  if (at != std::string_view::npos) {
    if (auto user = parse_user_info(authority.substr(0, at), url); !user) {
      return make_error(user.error());
    }
    authority.remove_prefix(at + 1);
  }
  if (auto host = parse_host_port(authority, url); !host) {
    return make_error(host.error());
  }
  auto path = percent_decode(slash == std::string_view::npos ? "/" : rest.substr(slash));
  if (!path) {
    return make_error(path.error());
  }
  url.path = std::move(*path);
  return url;
}

Result<Url> parse_file(std::string_view rest) {
  // file:///abs and file://localhost/abs; RFC 8089 allows no other host for a local file.
  const auto slash = rest.find('/');
  const auto host = rest.substr(0, slash);
  if (slash == std::string_view::npos || (!host.empty() && host != "localhost")) {
    return bad_argument();
  }
  auto path = percent_decode(rest.substr(slash));
  if (!path) {
    return make_error(path.error());
  }
  Url url;
  url.path = std::move(*path);
  return url;
}

}  // namespace

Result<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) {
      return bad_argument();
    }
    const int high = protocol::hex_digit_value(text[i + 1]);
    const int low = protocol::hex_digit_value(text[i + 2]);
    if (high < 0 || low < 0 || (high == 0 && low == 0)) {
      return bad_argument();
    }
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

Result<Url> parse_url(std::string_view text) {
  if (text.empty()) {
    return bad_argument();
  }
  for (const auto& row : kSchemes) {
    if (starts_with_ignoring_case(text, row.prefix)) {
      return parse_remote(text.substr(row.prefix.size()), row);
    }
  }
  if (starts_with_ignoring_case(text, "file://")) {
    return parse_file(text.substr(7));
  }
  if (text.find("://") != std::string_view::npos) {
    return bad_argument();
  }
  // A plain local path is taken literally: '%' in a file name is not an escape here.
  Url url;
  url.path = std::string(text);
  return url;
}

std::string_view scheme_name(Scheme scheme) {
  switch (scheme) {
    case Scheme::File:
      return "file";
    case Scheme::Ftp:
      return "ftp";
    case Scheme::GsiFtp:
      return "gsiftp";
    case Scheme::Ftps:
      return "ftps";
  }
  return "unknown";
}

std::string Url::origin() const {
  std::string out(scheme_name(scheme));
  out += "://";
  if (host.find(':') != std::string::npos) {
    out += '[' + host + ']';
  } else {
    out += host;
  }
  if (is_remote()) {
    out += ':' + std::to_string(port);
  }
  return out;
}

std::string display_url(const Url& url) {
  return url.is_remote() ? url.origin() + url.path : url.path;
}

}  // namespace gridftp::client
