// URLs as gridcp takes them: ftp://, gsiftp://, ftps://, file:// and plain local paths
// (RFC 3986 syntax, RFC 1738 ftp URLs). Pure; this is parsing only, not name resolution.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::client {

enum class Scheme { File, Ftp, GsiFtp, Ftps };

inline constexpr std::uint16_t kFtpDefaultPort = 21;
inline constexpr std::uint16_t kGsiFtpDefaultPort = 2811;

struct Url {
  Scheme scheme = Scheme::File;
  std::string user;      // percent-decoded; empty means anonymous
  std::string password;  // percent-decoded
  bool has_user = false;
  std::string host;  // IPv6 literals without brackets ("::1")
  std::uint16_t port = 0;
  // Percent-decoded path. For remote URLs it starts with '/' and is what the server gets
  // (Globus takes it as an absolute path: ftp://h/tmp/x names /tmp/x). For file URLs and plain
  // paths it is the local path as given.
  std::string path;

  bool is_remote() const { return scheme != Scheme::File; }
  bool is_directory() const { return !path.empty() && path.back() == '/'; }
  // "ftp://host:port" with IPv6 hosts bracketed; never includes credentials.
  std::string origin() const;
};

// Parses one URL or local path. Errors, all Errc::BadArgument: an unknown scheme, an empty or
// unterminated "[...]" host, a port that is not 1..65535, a bad "%xx" escape, a decoded NUL, a
// remote URL without host, a file:// URL naming a host other than localhost.
Result<Url> parse_url(std::string_view text);

// Decodes "%xx" escapes. Errors: Errc::BadArgument for a truncated or non-hex escape or "%00".
Result<std::string> percent_decode(std::string_view text);

std::string_view scheme_name(Scheme scheme);

// The URL as reports show it: origin + path for remote URLs (no credentials), the path for
// local ones.
std::string display_url(const Url& url);

}  // namespace gridftp::client
