#include "client/copy/url_pair_list.hpp"

#include "protocol/core/errors.hpp"

namespace gridftp::client {
namespace {

constexpr std::string_view kBlanks = " \t\r";

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  for (;;) {
    const auto start = line.find_first_not_of(kBlanks);
    if (start == std::string_view::npos) {
      return words;
    }
    line.remove_prefix(start);
    const auto end = line.find_first_of(kBlanks);
    words.push_back(line.substr(0, end));
    if (end == std::string_view::npos) {
      return words;
    }
    line.remove_prefix(end);
  }
}

}  // namespace

Result<std::vector<UrlPair>> parse_url_pairs(std::string_view text, std::size_t& bad_line) {
  std::vector<UrlPair> pairs;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const auto newline = text.find('\n');
    const auto line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    const auto words = split_words(line);
    if (words.empty() || words.front().front() == '#') {
      continue;
    }
    if (words.size() != 2) {
      bad_line = line_number;
      return make_error(make_error_code(protocol::Errc::BadArgument));
    }
    pairs.push_back(UrlPair{std::string(words[0]), std::string(words[1])});
  }
  return pairs;
}

}  // namespace gridftp::client
