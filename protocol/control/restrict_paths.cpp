#include "protocol/control/restrict_paths.hpp"

#include <algorithm>

#include "protocol/control/virtual_path.hpp"
#include "protocol/core/errors.hpp"
#include "protocol/core/hex.hpp"

namespace gridftp::protocol::control {
namespace {

constexpr std::string_view kPathStarts = "/~$*?[";
constexpr std::string_view kPatternChars = "*?[";

// Errc::BadArgument, with the reason in `why`.
std::error_code refuse(std::string& why, std::string text) {
  why = std::move(text);
  return make_error_code(Errc::BadArgument);
}

// Splits on commas exactly as written: Globus trims nothing, so " W/var" is a bad entry.
std::vector<std::string_view> entries_of(std::string_view spec) {
  std::vector<std::string_view> entries;
  std::size_t start = 0;
  for (;;) {
    const auto comma = spec.find(',', start);
    entries.push_back(
        spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start));
    if (comma == std::string_view::npos) return entries;
    start = comma + 1;
  }
}

struct Entry {
  bool read = false;
  bool write = false;
  bool denied = false;
  std::string_view path;
};

Result<Entry> read_entry(std::string_view text, std::string& why) {
  Entry entry;
  std::size_t i = 0;
  bool prefixed = false;
  for (; i < text.size(); ++i) {
    const char c = static_cast<char>(text[i] & ~0x20);  // R, W, N in either case
    if (c == 'R') {
      entry.read = true;
    } else if (c == 'W') {
      entry.write = true;
    } else if (c == 'N') {
      entry.denied = true;
    } else {
      break;
    }
    prefixed = true;
  }
  entry.path = text.substr(i);
  if (entry.path.empty() || kPathStarts.find(entry.path.front()) == std::string_view::npos) {
    return make_error(refuse(why, "restrict_paths entry '" + std::string(text) +
                                      "' must be a full path, prefixed only with R, W or N"));
  }
  if (entry.path.find(':') != std::string_view::npos) {
    return make_error(refuse(why, "restrict_paths entry '" + std::string(text) +
                                      "': realpath:alias entries are not supported"));
  }
  if (!prefixed) entry.read = entry.write = true;  // no prefix: read and write
  return entry;
}

// %XX decoding, so that an entry can hold a comma (%2C).
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = protocol::hex_digit_value(text[i + 1]);
      const int low = protocol::hex_digit_value(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

void replace_all(std::string& text, std::string_view what, std::string_view with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

// A `[...]` class at the front of `pattern` against `c`: matched, and how long the class is
// (0 when it has no closing bracket, and `[` is then an ordinary character).
std::pair<bool, std::size_t> match_class(std::string_view pattern, char c) {
  std::size_t i = 1;
  const bool negated = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negated) ++i;
  bool matched = false;
  for (bool first = true; i < pattern.size() && (first || pattern[i] != ']'); first = false) {
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      matched = matched || (pattern[i] <= c && c <= pattern[i + 2]);
      i += 3;
    } else {
      matched = matched || pattern[i] == c;
      ++i;
    }
  }
  if (i >= pattern.size()) return {false, 0};
  return {matched != negated, i + 1};
}

// fnmatch(3) with no flags: `*` matches any run (slashes included), `?` one character,
// `[...]` a class.
bool glob_match(std::string_view pattern, std::string_view text) {
  while (!pattern.empty()) {
    if (pattern.front() == '*') {
      pattern.remove_prefix(1);
      for (std::size_t skip = 0; skip <= text.size(); ++skip) {
        if (glob_match(pattern, text.substr(skip))) return true;
      }
      return false;
    }
    if (text.empty()) return false;
    if (pattern.front() == '[') {
      const auto [matched, length] = match_class(pattern, text.front());
      if (length > 0) {
        if (!matched) return false;
        pattern.remove_prefix(length);
        text.remove_prefix(1);
        continue;
      }
    }
    if (pattern.front() != '?' && pattern.front() != text.front()) return false;
    pattern.remove_prefix(1);
    text.remove_prefix(1);
  }
  return text.empty();
}

std::string child_of(std::string_view directory, std::string_view name) {
  std::string child(directory);
  if (child != "/") child += '/';
  child += name;
  return child;
}

}  // namespace

Result<void> check_restrict_paths(std::string_view spec, std::string& why) {
  for (const auto text : entries_of(spec)) {
    if (auto entry = read_entry(text, why); !entry) return make_error(entry.error());
  }
  return {};
}

Result<std::vector<PathRule>> parse_restrict_paths(std::string_view spec, std::string_view home,
                                                   std::string_view user, std::string& why) {
  std::vector<PathRule> rules;
  for (const auto text : entries_of(spec)) {
    auto entry = read_entry(text, why);
    if (!entry) return make_error(entry.error());
    std::string path = percent_decoded(entry->path);
    if (!path.empty() && path.front() == '~') path = std::string(home) + path.substr(1);
    replace_all(path, "$HOME", home);
    replace_all(path, "$USER", user);
    PathRule rule{path, entry->read, entry->write, entry->denied,
                  path.find_first_of(kPatternChars) != std::string::npos};
    if (!rule.pattern) {
      const bool absolute = !path.empty() && path.front() == '/';
      auto normalized = resolve_virtual_path("/", absolute ? path : "");
      if (!absolute || !normalized) {
        return make_error(refuse(why, "restrict_paths entry '" + std::string(text) +
                                          "' is not an absolute path after expansion ('" + path +
                                          "')"));
      }
      rule.path = std::move(*normalized);
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

PathRules::PathRules(std::vector<PathRule> rules) : rules_(std::move(rules)) {
  // Plain trees before patterns, each in reverse byte order: a tree's subtrees sort before it,
  // so the first rule that matches is the most specific one.
  std::stable_sort(rules_.begin(), rules_.end(), [](const PathRule& a, const PathRule& b) {
    if (a.pattern != b.pattern) return !a.pattern;
    return a.path > b.path;
  });
}

PathRights PathRules::rights(std::string_view path) const {
  if (rules_.empty()) return {true, true, true, false};
  for (const auto& rule : rules_) {
    const bool match = rule.pattern ? glob_match(rule.path, path) : is_within(path, rule.path);
    if (!match) continue;
    if (rule.denied) return {};
    return {true, rule.read, rule.write, false};
  }
  // Above an allowed tree: listable, so clients can walk down to it, showing only the way there.
  const bool leads_somewhere = std::any_of(rules_.begin(), rules_.end(), [&](const PathRule& r) {
    return !r.pattern && !r.denied && r.path != path && is_within(r.path, path);
  });
  if (leads_somewhere) return {true, false, false, true};
  return {};
}

bool PathRules::shows(std::string_view directory, std::string_view name) const {
  return rights(child_of(directory, name)).list;
}

}  // namespace gridftp::protocol::control
