#include "client/listing_entry.hpp"

#include <charconv>

#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != (b[i] | 0x20)) {
      return false;
    }
  }
  return true;
}

void apply_fact(std::string_view key, std::string_view value, ListingEntry& entry) {
  if (equals_ignoring_case(key, "type")) {
    entry.is_directory = equals_ignoring_case(value, "dir") ||
                         equals_ignoring_case(value, "cdir") || equals_ignoring_case(value, "pdir");
    entry.is_self_or_parent =
        equals_ignoring_case(value, "cdir") || equals_ignoring_case(value, "pdir");
    return;
  }
  if (equals_ignoring_case(key, "size")) {
    std::uint64_t bytes = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
    if (ec == std::errc{} && end == value.data() + value.size()) {
      entry.size_bytes = bytes;
    }
  }
}

}  // namespace

std::string ListingEntry::display_name() const { return is_directory ? name + '/' : name; }

Result<ListingEntry> parse_mlsd_line(std::string_view line) {
  const auto separator = line.find("; ");
  if (separator == std::string_view::npos || separator + 2 >= line.size()) {
    return make_error(make_error_code(protocol::Errc::BadReply));
  }
  ListingEntry entry;
  entry.name = std::string(line.substr(separator + 2));
  auto facts = line.substr(0, separator + 1);
  while (!facts.empty()) {
    const auto end = facts.find(';');
    const auto fact = facts.substr(0, end);
    const auto equals = fact.find('=');
    if (equals == std::string_view::npos) {
      return make_error(make_error_code(protocol::Errc::BadReply));
    }
    apply_fact(fact.substr(0, equals), fact.substr(equals + 1), entry);
    facts.remove_prefix(end == std::string_view::npos ? facts.size() : end + 1);
  }
  return entry;
}

std::vector<std::string_view> split_listing_lines(std::string_view body) {
  std::vector<std::string_view> out;
  while (!body.empty()) {
    const auto newline = body.find('\n');
    auto line = body.substr(0, newline);
    while (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!line.empty()) {
      out.push_back(line);
    }
    body.remove_prefix(newline == std::string_view::npos ? body.size() : newline + 1);
  }
  return out;
}

}  // namespace gridftp::client
