// The block I/O decorators of transport/udpx/file_blocks: a read-ahead source serves blocks read
// in order from one chunk read and reads a block behind its chunk on its own; a coalescing sink
// writes blocks that follow one another in one write, and reports nothing to the sink below
// before it wrote it (docs/UDPX.md §6).
#include "transport/udpx/file_blocks.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace gridftp::transport::udpx;
using gridftp::Result;

namespace {

struct CountingSource final : BlockSource {
  std::vector<std::uint8_t> bytes;
  int reads = 0;
  Result<std::size_t> read_at(std::uint64_t offset, std::span<std::uint8_t> out) override {
    ++reads;
    const auto count = std::min<std::size_t>(
        out.size(), bytes.size() - std::min<std::size_t>(offset, bytes.size()));
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(offset), count, out.begin());
    return count;
  }
};

struct RecordingSink final : BlockSink {
  std::vector<std::uint8_t> bytes = std::vector<std::uint8_t>(4096, 0);
  std::vector<std::pair<std::uint64_t, std::size_t>> writes;
  bool fail = false;
  Result<void> write_at(std::uint64_t offset, std::span<const std::uint8_t> data) override {
    if (fail) return gridftp::make_error(std::make_error_code(std::errc::no_space_on_device));
    writes.emplace_back(offset, data.size());
    std::copy(data.begin(), data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset));
    return {};
  }
};

std::vector<std::uint8_t> block(std::size_t bytes, std::uint8_t value) {
  return std::vector<std::uint8_t>(bytes, value);
}

}  // namespace

TEST_CASE("A read-ahead source reads blocks in order from one chunk and others on their own",
          "[udpx][blocks]") {
  auto inner = std::make_unique<CountingSource>();
  for (int i = 0; i < 1000; ++i) inner->bytes.push_back(static_cast<std::uint8_t>(i * 13));
  auto* counting = inner.get();
  ReadAheadSource source(std::move(inner), 300);
  std::vector<std::uint8_t> out(100);
  for (std::uint64_t offset = 0; offset < 300; offset += 100) {
    REQUIRE(*source.read_at(offset, out) == 100);
    CHECK(std::equal(out.begin(), out.end(), counting->bytes.begin() + static_cast<long>(offset)));
  }
  CHECK(counting->reads == 1);
  REQUIRE(*source.read_at(250, out) == 100);  // reaches past the chunk: the next one from here
  CHECK(counting->reads == 2);
  CHECK(std::equal(out.begin(), out.end(), counting->bytes.begin() + 250));
  REQUIRE(*source.read_at(10, out) == 100);  // behind the chunk: read on its own
  CHECK(counting->reads == 3);
  CHECK(std::equal(out.begin(), out.end(), counting->bytes.begin() + 10));
  REQUIRE(*source.read_at(950, out) == 50);  // the end
  CHECK(std::equal(out.begin(), out.begin() + 50, counting->bytes.begin() + 950));
}

TEST_CASE("A coalescing sink writes following blocks at once and only after they are written",
          "[udpx][blocks]") {
  auto inner = std::make_unique<RecordingSink>();
  auto* recording = inner.get();
  CoalescingSink sink(std::move(inner), 1000);
  CHECK_FALSE(sink.absorbs(0, 100));  // an empty buffer: the write may flush the inner sink
  for (std::uint64_t k = 0; k < 5; ++k) REQUIRE(sink.write_at(k * 100, block(100, 1)));
  CHECK(recording->writes.empty());  // nothing reached the file yet
  // What the receiver leaves untimed: only a following block that fits.
  CHECK(sink.absorbs(500, 100));
  CHECK(sink.absorbs(500, 500));
  CHECK_FALSE(sink.absorbs(500, 501));
  CHECK_FALSE(sink.absorbs(700, 100));
  REQUIRE(sink.write_at(700, block(100, 2)));  // a gap: the run so far goes first
  REQUIRE(recording->writes.size() == 1);
  CHECK(recording->writes[0] == std::pair<std::uint64_t, std::size_t>{0, 500});
  for (std::uint64_t k = 8; k < 20; ++k) REQUIRE(sink.write_at(k * 100, block(100, 3)));
  // 700..1700 filled the buffer of 1000 bytes and went; 1700..2000 waits.
  CHECK(recording->writes.back() == std::pair<std::uint64_t, std::size_t>{700, 1000});
  REQUIRE(sink.flush());
  CHECK(recording->writes.back() == std::pair<std::uint64_t, std::size_t>{1700, 300});
  CHECK(recording->bytes[1999] == 3);
  recording->fail = true;
  REQUIRE(sink.write_at(3000, block(10, 4)));
  CHECK_FALSE(sink.flush());
}
