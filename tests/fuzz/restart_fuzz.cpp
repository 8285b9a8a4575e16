// Restart state read from a peer: REST range lists, 111 range markers and 112 perf markers.
// A list that parses is checked against a reference model (a bitmap over the bytes it names)
// and must format back to a list that parses to the same set.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/restart/byte_range_set.hpp"
#include "protocol/restart/markers.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pr = gridftp::protocol::restart;

constexpr std::uint64_t kModelBytes = 4096;

// The set restricted to [0, kModelBytes) as a bitmap, from its ranges.
std::vector<bool> bitmap_of(const pr::ByteRangeSet& set) {
  std::vector<bool> bits(kModelBytes, false);
  for (const auto& range : set.ranges()) {
    for (auto at = range.start; at < range.end && at < kModelBytes; ++at) bits[at] = true;
  }
  return bits;
}

void check_set(const pr::ByteRangeSet& set) {
  const auto& ranges = set.ranges();
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    FUZZ_CHECK(ranges[i].start < ranges[i].end);
    if (i > 0) FUZZ_CHECK(ranges[i - 1].end < ranges[i].start);  // disjoint, not adjacent
  }
  auto again = pr::parse_range_list(set.format_range_list());
  FUZZ_CHECK(set.empty() ? !again : (again && *again == set));
  // contains() and gaps() agree with the bitmap on a few probes inside the model.
  const auto bits = bitmap_of(set);
  for (std::uint64_t at = 0; at < kModelBytes; at += 61) {
    FUZZ_CHECK(set.contains(at, 1) == bits[at]);
  }
  std::uint64_t missing = 0;
  for (const auto& gap : set.gaps(0, kModelBytes)) missing += gap.length();
  std::uint64_t model_missing = 0;
  for (bool bit : bits) model_missing += bit ? 0 : 1;
  FUZZ_CHECK(missing == model_missing);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = gridftp::fuzz::as_text(data, size);
  if (auto set = pr::parse_range_list(text)) check_set(*set);
  if (auto marker = pr::parse_range_marker(text)) check_set(*marker);
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t at = 0; at <= text.size(); ++at) {
    if (at == text.size() || text[at] == '\n') {
      lines.emplace_back(text.substr(start, at - start));
      start = at + 1;
    }
  }
  (void)pr::parse_perf_marker_bytes(lines);
  return 0;
}
