#include "security/gridmap.hpp"

#include <algorithm>

#include "protocol/core/hex.hpp"
#include "security/local_file.hpp"
#include "security/security_errors.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::security {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Globus's gridmap_parse_globusid: undo the escapes, then write bytes outside printable ASCII as
// \xHH with upper-case digits, which is how X509_NAME_oneline prints them in identities.
std::string unescape_dn(std::string_view raw) {
  constexpr std::string_view kHexDigits = "0123456789ABCDEF";
  std::string dn;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    auto byte = static_cast<unsigned char>(raw[i]);
    if (byte == '\\' && i + 1 < raw.size()) {
      byte = static_cast<unsigned char>(raw[++i]);
      const int high = i + 2 < raw.size() ? protocol::hex_digit_value(raw[i + 1]) : -1;
      const int low = i + 2 < raw.size() ? protocol::hex_digit_value(raw[i + 2]) : -1;
      if (byte == 'x' && high >= 0 && low >= 0) {
        byte = static_cast<unsigned char>(high * 16 + low);
        i += 2;
      }
    } else if (byte == '\\') {
      break;  // a lone trailing backslash escapes nothing
    }
    if (byte < 0x20 || byte > 0x7e) {
      dn += "\\x";
      dn += kHexDigits[byte >> 4];
      dn += kHexDigits[byte & 0x0f];
    } else {
      dn += static_cast<char>(byte);
    }
  }
  return dn;
}

struct LineParse {
  std::optional<GridmapEntry> entry;  // empty for blank and comment lines
  std::string_view problem;           // non-empty when the line is bad
};

LineParse bad(std::string_view problem) { return {std::nullopt, problem}; }

// Finds the closing quote of a DN that opened at line[0]; returns npos when there is none.
std::size_t closing_quote(std::string_view line) {
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;  // the escaped character, quote or not, is part of the DN
    } else if (line[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

std::vector<std::string> split_accounts(std::string_view list) {
  std::vector<std::string> accounts;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) {
      accounts.emplace_back(list.substr(start, comma - start));
    }
    start = comma + 1;
  }
  return accounts;
}

LineParse parse_line(std::string_view line) {
  if (line.find('\0') != std::string_view::npos) {
    return bad("NUL byte in line");
  }
  std::size_t pos = 0;
  while (pos < line.size() && is_blank(line[pos])) {
    ++pos;
  }
  line.remove_prefix(pos);
  if (line.empty() || line.front() == '#') {
    return {};
  }
  std::string_view raw_dn;
  std::size_t rest = 0;
  if (line.front() == '"') {
    const std::size_t close = closing_quote(line);
    if (close == std::string_view::npos) {
      return bad("missing closing quote after the DN");
    }
    raw_dn = line.substr(1, close - 1);
    rest = close + 1;
  } else {
    rest = 0;
    while (rest < line.size() && !is_blank(line[rest])) {
      ++rest;
    }
    raw_dn = line.substr(0, rest);
  }
  while (rest < line.size() && is_blank(line[rest])) {
    ++rest;
  }
  // The account list is one token; a '#' ends it like white space does.
  std::size_t end = rest;
  while (end < line.size() && !is_blank(line[end]) && line[end] != '#') {
    ++end;
  }
  GridmapEntry entry{unescape_dn(raw_dn), split_accounts(line.substr(rest, end - rest))};
  if (entry.dn.empty()) {
    return bad("empty DN");
  }
  if (entry.accounts.empty()) {
    return bad("no local account after the DN");
  }
  return {std::move(entry), {}};
}

Result<Gridmap> parse(std::string_view text, std::string* message) {
  std::vector<GridmapEntry> entries;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = std::min(text.find('\n', start), text.size());
    ++line_number;
    LineParse parsed = parse_line(text.substr(start, newline - start));
    if (!parsed.problem.empty()) {
      if (message != nullptr) {
        *message = "line " + std::to_string(line_number) + ": " + std::string(parsed.problem);
      }
      return make_error(Errc::MalformedGridmap);
    }
    if (parsed.entry) {
      entries.push_back(std::move(*parsed.entry));
    }
    start = newline + 1;
  }
  return Gridmap(std::move(entries));
}

Result<Gridmap> load(const std::filesystem::path& path, std::string* message) {
  const auto text = read_local_file(path, FileAccess::Public, kMaxGridmapFileBytes);
  if (!text) {
    if (message != nullptr) {
      *message = path.string() + ": " + text.error().message();
    }
    return make_error(text.error());
  }
  auto gridmap = parse(*text, message);
  if (!gridmap && message != nullptr) {
    *message = path.string() + ": " + *message;
  }
  return gridmap;
}

}  // namespace

const GridmapEntry* Gridmap::find(std::string_view dn) const {
  for (const GridmapEntry& entry : entries_) {
    if (same_identity(entry.dn, dn)) {
      return &entry;
    }
  }
  return nullptr;
}

std::optional<std::string> Gridmap::default_account(std::string_view dn) const {
  const GridmapEntry* entry = find(dn);
  if (entry == nullptr) {
    return std::nullopt;
  }
  return entry->accounts.front();
}

bool Gridmap::allows(std::string_view dn, std::string_view account) const {
  const GridmapEntry* entry = find(dn);
  if (entry == nullptr) {
    return false;
  }
  for (const std::string& candidate : entry->accounts) {
    if (candidate == account) {
      return true;
    }
  }
  return false;
}

Result<Gridmap> parse_gridmap(std::string_view text) { return parse(text, nullptr); }

Result<Gridmap> parse_gridmap(std::string_view text, std::string& message) {
  message.clear();
  return parse(text, &message);
}

Result<Gridmap> load_gridmap(const std::filesystem::path& path) { return load(path, nullptr); }

Result<Gridmap> load_gridmap(const std::filesystem::path& path, std::string& message) {
  message.clear();
  return load(path, &message);
}

}  // namespace gridftp::security
