// A restarted UDPX transfer's stream of missing ranges (protocol/udpx/restart_layout) and the
// block I/O through it (transport/udpx/restart_blocks): sender and receiver map stream offsets
// to the same file offsets, a block spanning two gaps is split, and copying the stream fills
// exactly the gaps, which the sink then reports as written.
#include "protocol/udpx/restart_layout.hpp"

#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "transport/udpx/restart_blocks.hpp"

using gridftp::protocol::restart::ByteRangeSet;
using gridftp::protocol::restart::Range;
using gridftp::protocol::udpx::RestartLayout;

namespace {

ByteRangeSet present_of(std::initializer_list<Range> ranges) {
  ByteRangeSet set;
  for (const auto& range : ranges) set.insert(range);
  return set;
}

std::vector<RestartLayout::Piece> pieces(const RestartLayout& layout, std::uint64_t offset,
                                         std::uint64_t count) {
  std::vector<RestartLayout::Piece> out;
  layout.for_each_piece(offset, count, [&](const RestartLayout::Piece& p) { out.push_back(p); });
  return out;
}

class MemoryFile final : public gridftp::transport::udpx::BlockSource,
                         public gridftp::transport::udpx::BlockSink {
 public:
  explicit MemoryFile(std::vector<std::uint8_t> initial) : bytes(std::move(initial)) {}
  gridftp::Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override {
    if (offset >= bytes.size()) return std::size_t{0};
    const auto count = std::min<std::size_t>(out.size(), bytes.size() - offset);
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(offset), count, out.begin());
    return count;
  }
  gridftp::Result<void> write_at(std::uint64_t offset,
                                 std::span<const std::uint8_t> data) override {
    if (offset + data.size() > bytes.size()) bytes.resize(offset + data.size());
    std::copy(data.begin(), data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset));
    return {};
  }
  std::vector<std::uint8_t> bytes;
};

}  // namespace

TEST_CASE("A restart layout lays the missing ranges end to end", "[udpx]") {
  const auto present = present_of({{100, 200}, {300, 400}});
  const RestartLayout sender(present, 0, 500);
  REQUIRE(sender.length() == 300);
  const auto crossing = pieces(sender, 90, 30);  // the end of one gap, the start of the next
  REQUIRE(crossing.size() == 2);
  CHECK(crossing[0].file_offset == 90);
  CHECK(crossing[0].length == 10);
  CHECK(crossing[1].file_offset == 200);
  CHECK(crossing[1].stream_offset == 100);
  CHECK(crossing[1].length == 20);
  const auto tail = pieces(sender, 250, 100);  // runs past the stream: stops at its end
  REQUIRE(tail.size() == 1);
  CHECK(tail[0].file_offset == 450);
  CHECK(tail[0].length == 50);

  // The receiver does not know the file's length: its stream is open at the end, and the same
  // stream offsets land on the same file offsets.
  const RestartLayout receiver(present, 0, RestartLayout::kOpenEnd);
  for (std::uint64_t offset = 0; offset < 300; offset += 7) {
    const auto count = std::min<std::uint64_t>(7, 300 - offset);
    const auto a = pieces(sender, offset, count);
    const auto b = pieces(receiver, offset, count);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].file_offset == b[i].file_offset);
      CHECK(a[i].length == b[i].length);
    }
  }
}

TEST_CASE("Nothing present: the layout is the file itself", "[udpx]") {
  const RestartLayout receiver(ByteRangeSet{}, 0, RestartLayout::kOpenEnd);
  const auto span = pieces(receiver, 12345, 1404);
  REQUIRE(span.size() == 1);
  CHECK(span[0].file_offset == 12345);
  CHECK(span[0].length == 1404);
}

TEST_CASE("Copying the stream of missing ranges fills exactly the gaps", "[udpx]") {
  std::vector<std::uint8_t> original(10'000);
  for (std::size_t i = 0; i < original.size(); ++i)
    original[i] = static_cast<std::uint8_t>(i * 131 + 7);
  const auto present = present_of({{0, 1500}, {2000, 2001}, {4096, 8000}});
  auto source = std::make_unique<MemoryFile>(original);
  auto partial = std::make_unique<MemoryFile>(
      std::vector<std::uint8_t>(original.begin(), original.begin() + 8000));
  for (std::size_t i = 1500; i < 2000; ++i) partial->bytes[i] = 0;  // holes hold junk
  for (std::size_t i = 2001; i < 4096; ++i) partial->bytes[i] = 0;
  const auto& result = *partial;
  gridftp::transport::udpx::LaidOutSource sender(std::move(source),
                                                 RestartLayout(present, 0, 10'000));
  gridftp::transport::udpx::LaidOutSink receiver(
      std::move(partial), RestartLayout(present, 0, RestartLayout::kOpenEnd));
  std::vector<std::uint8_t> block(1404);
  std::uint64_t offset = 0;
  for (;;) {
    auto read = sender.read_at(offset, block);
    REQUIRE(read);
    if (*read == 0) break;
    REQUIRE(receiver.write_at(offset, std::span(block).first(*read)));
    offset += *read;
  }
  CHECK(offset == 500 + 2095 + 2000);
  CHECK(result.bytes == original);
  CHECK(receiver.written().format_range_list() == "1500-2000,2001-4096,8000-10000");
}
