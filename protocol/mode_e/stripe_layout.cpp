#include "protocol/mode_e/stripe_layout.hpp"

#include <algorithm>
#include <limits>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/mode_e_errors.hpp"

namespace gridftp::protocol::mode_e {
namespace {

constexpr std::uint64_t kLast = std::numeric_limits<std::uint64_t>::max();

// OPTS RETR accepts any BlockSize up to 2^64 - 1: products and sums saturate instead of wrapping.
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kLast / a ? kLast : a * b;
}
std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b) {
  return b > kLast - a ? kLast : a + b;
}

std::vector<restart::Range> blocked_ranges(std::uint64_t block_size, StripePlace place,
                                           restart::Range transfer) {
  std::vector<restart::Range> ranges;
  const std::uint64_t period = saturating_product(block_size, place.count);  // a block a stripe
  // The first block of this stripe that ends after the transfer's start.
  const std::uint64_t first_block = transfer.start / block_size;
  const std::uint64_t skip = (place.index + place.count - first_block % place.count) % place.count;
  for (std::uint64_t at = saturating_product(first_block + skip, block_size); at < transfer.end;
       at += period) {
    const restart::Range piece{std::max(at, transfer.start),
                               std::min(saturating_sum(at, block_size), transfer.end)};
    if (!ranges.empty() && ranges.back().end == piece.start) {
      ranges.back().end = piece.end;  // one stripe only: every block is its own
    } else {
      ranges.push_back(piece);
    }
    if (transfer.end - at <= period) break;  // the next `at` would pass the end (or wrap)
  }
  return ranges;
}

std::vector<restart::Range> partitioned_ranges(StripePlace place, restart::Range transfer) {
  const std::uint64_t length = transfer.length();
  const std::uint64_t piece = length / place.count + (length % place.count != 0 ? 1 : 0);
  const std::uint64_t start = transfer.start + std::min(length, piece * place.index);
  const std::uint64_t end = transfer.start + std::min(length, piece * (place.index + 1));
  if (start == end) return {};
  return {restart::Range{start, end}};
}

}  // namespace

Result<std::vector<restart::Range>> stripe_ranges(const StripeLayout& layout, StripePlace place,
                                                  restart::Range transfer) {
  if (place.count == 0 || place.index >= place.count)
    return make_error(make_error_code(protocol::Errc::BadArgument));
  if (transfer.end <= transfer.start) return std::vector<restart::Range>{};
  if (layout.kind == StripeLayout::Kind::Partitioned) return partitioned_ranges(place, transfer);
  if (layout.block_size == 0) return make_error(make_error_code(Errc::BadBlockSize));
  return blocked_ranges(layout.block_size, place, transfer);
}

Result<restart::ByteRangeSet> outside_stripe(const std::optional<StripeLayout>& layout,
                                             StripePlace place, std::uint64_t length) {
  if (place.count == 0 || place.index >= place.count)
    return make_error(make_error_code(protocol::Errc::BadArgument));
  restart::ByteRangeSet others;
  if (!layout) {
    if (place.index != 0 && length > 0) others.insert(0, length);
    return others;
  }
  auto own = stripe_ranges(*layout, place, {0, length});
  if (!own) return make_error(own.error());
  std::uint64_t at = 0;
  for (const auto& range : *own) {
    if (range.start > at) others.insert(at, range.start);
    at = range.end;
  }
  if (at < length) others.insert(at, length);
  return others;
}

Result<std::vector<BlockPlanner>> stripe_planners(const std::optional<StripeLayout>& layout,
                                                  unsigned count, std::uint64_t length,
                                                  const restart::ByteRangeSet& present,
                                                  std::uint64_t block_bytes) {
  std::vector<BlockPlanner> planners;
  for (unsigned index = 0; index < count; ++index) {
    auto skip = outside_stripe(layout, {index, count}, length);
    if (!skip) return make_error(skip.error());
    skip->insert(present);
    auto planner = BlockPlanner::for_restart(0, length, *skip, block_bytes);
    if (!planner) return make_error(planner.error());
    planners.push_back(std::move(*planner));
  }
  return planners;
}

}  // namespace gridftp::protocol::mode_e
