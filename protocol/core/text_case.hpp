// ASCII upper-casing for verbs, OPTS keys and mode letters: FTP keywords are case-insensitive
// (RFC 959 §5.3), and the C locale never applies to them.
#pragma once

#include <cctype>
#include <string>

namespace gridftp::protocol {

inline std::string ascii_upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace gridftp::protocol
