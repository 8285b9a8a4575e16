#include "client/data/udpx_path_memory.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace gridftp::client {
namespace {

constexpr double kShortestRememberedSeconds = 1.0;
constexpr double kShortestRememberedRoundTrips = 10.0;

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
  const auto* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, out);
  return error == std::errc() && at == end;
}

std::filesystem::path memory_file() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  if (cache != nullptr && *cache != '\0') {
    return std::filesystem::path(cache) / "gridcp" / "udpx-paths";
  }
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    return {};
  }
  return std::filesystem::path(home) / ".cache" / "gridcp" / "udpx-paths";
}

std::vector<PathRate> read_memory(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_path_rates(text.str());
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::vector<PathRate> parse_path_rates(std::string_view text) {
  std::vector<PathRate> rates;
  while (!text.empty()) {
    const auto end = text.find('\n');
    auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    std::vector<std::string_view> words;
    while (!line.empty()) {
      const auto space = line.find(' ');
      if (space != 0) words.push_back(line.substr(0, space));
      line = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    }
    PathRate rate;
    if (words.size() != 3 || !parse_number(words[1], rate.bits_per_second) ||
        !parse_number(words[2], rate.unix_seconds) || rate.bits_per_second == 0) {
      continue;
    }
    rate.address = std::string(words[0]);
    update_path_rate(rates, std::move(rate));
  }
  return rates;
}

std::string format_path_rates(const std::vector<PathRate>& rates) {
  std::string out;
  for (const auto& rate : rates) {
    out += rate.address + ' ' + std::to_string(rate.bits_per_second) + ' ' +
           std::to_string(rate.unix_seconds) + '\n';
  }
  return out;
}

std::optional<std::uint64_t> fresh_path_rate(const std::vector<PathRate>& rates,
                                             std::string_view address, std::int64_t now) {
  const auto found = std::find_if(rates.begin(), rates.end(),
                                  [&](const PathRate& rate) { return rate.address == address; });
  if (found == rates.end() || found->unix_seconds > now ||
      now - found->unix_seconds > kPathRateLifetimeSeconds) {
    return std::nullopt;
  }
  return found->bits_per_second;
}

void update_path_rate(std::vector<PathRate>& rates, PathRate rate) {
  const auto found = std::find_if(rates.begin(), rates.end(), [&](const PathRate& entry) {
    return entry.address == rate.address;
  });
  if (found != rates.end()) {
    *found = std::move(rate);
  } else {
    rates.push_back(std::move(rate));
  }
}

std::optional<std::uint64_t> rate_worth_remembering(const NetworkFigures& figures) {
  if (figures.rate_bps <= 0 || figures.bytes == 0) {
    return std::nullopt;
  }
  const double seconds = static_cast<double>(figures.bytes) * 8 / figures.rate_bps;
  if (seconds <
      std::max(kShortestRememberedSeconds, kShortestRememberedRoundTrips * figures.rtt_ms / 1000)) {
    return std::nullopt;
  }
  const double delivered_share = 1 - std::clamp(figures.loss, 0.0, 0.5);
  return static_cast<std::uint64_t>(figures.rate_bps / delivered_share);
}

std::optional<std::uint64_t> remembered_udpx_rate(const std::string& address) {
  const auto file = memory_file();
  if (file.empty()) {
    return std::nullopt;
  }
  return fresh_path_rate(read_memory(file), address, unix_now());
}

void remember_udpx_rate(const std::string& address, std::uint64_t bits_per_second) {
  const auto file = memory_file();
  if (file.empty()) {
    return;
  }
  std::error_code ignored;
  std::filesystem::create_directories(file.parent_path(), ignored);
  auto rates = read_memory(file);
  update_path_rate(rates, PathRate{address, bits_per_second, unix_now()});
  // Several gridcp processes may write at once: each writes its own file and renames it over.
  auto temporary = file;
  temporary += "." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << format_path_rates(rates);
    if (!out) {
      std::filesystem::remove(temporary, ignored);
      return;
    }
  }
  std::filesystem::rename(temporary, file, ignored);
}

}  // namespace gridftp::client
