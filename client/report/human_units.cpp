#include "client/report/human_units.hpp"

#include <array>
#include <cmath>
#include <cstdio>

namespace gridftp::client::report {
namespace {

constexpr std::array<const char*, 7> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

std::string scaled(double value) {
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%.0f B", value);
    return text;
  }
  // Three significant digits; rounding may carry 1023.99 KiB to "1024 KiB", which still reads
  // right, so the unit is not bumped again.
  const int decimals = value < 10 ? 2 : value < 100 ? 1 : 0;
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, kUnits[unit]);
  return text;
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) { return scaled(static_cast<double>(bytes)); }

std::string format_rate(double bytes_per_second) {
  if (!std::isfinite(bytes_per_second) || bytes_per_second < 0) {
    return "-";
  }
  return scaled(bytes_per_second) + "/s";
}

std::string format_duration(Clock::duration duration) {
  const auto total = std::chrono::round<std::chrono::seconds>(duration).count();
  const long long seconds = total < 0 ? 0 : static_cast<long long>(total);
  char text[40];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%llds", seconds);
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld", seconds / 60, seconds % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", seconds / 3600, seconds / 60 % 60,
                  seconds % 60);
  }
  return text;
}

}  // namespace gridftp::client::report
