// The two ends of a UDPX stream for in-order data (transport/udpx/stream_blocks, docs/UDPX.md
// §1.9): the sender's spool reads back what is not yet acknowledged and knows the end by the
// time the last block is read; the receiver's sink hands bytes on in order whatever order the
// blocks come in, and refuses blocks it could not place.
#include "transport/udpx/stream_blocks.hpp"

#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace gridftp::transport::udpx;
using gridftp::Result;

namespace {

std::string pattern(std::size_t bytes) {
  std::string out(bytes, '\0');
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>('a' + i % 23);
  return out;
}

// Makes `stream` in pieces of `piece` bytes, counting the calls.
struct Producer {
  std::string stream;
  std::size_t piece;
  std::size_t made = 0;
  int calls = 0;
  Result<bool> operator()(std::string& out, std::size_t) {
    ++calls;
    const auto count = std::min(piece, stream.size() - made);
    out.append(stream, made, count);
    made += count;
    return made == stream.size();
  }
};

std::string read(SpooledStreamSource& source, std::uint64_t offset, std::size_t bytes) {
  std::vector<std::uint8_t> out(bytes);
  auto got = source.read_at(offset, out);
  REQUIRE(got);
  return {reinterpret_cast<const char*>(out.data()), *got};
}

}  // namespace

TEST_CASE("A spooled stream reads back any unacknowledged block and knows its end in time",
          "[udpx][stream]") {
  const auto stream = pattern(20);
  Producer producer{stream, 3};
  SpooledStreamSource source(std::ref(producer));
  CHECK_FALSE(source.end());
  CHECK(read(source, 0, 10) == stream.substr(0, 10));
  CHECK_FALSE(source.end());  // 20 bytes: the first block of 10 is not the last
  CHECK(read(source, 10, 10) == stream.substr(10, 10));
  REQUIRE(source.end());  // known as the last block's bytes are returned
  CHECK(*source.end() == 20);
  CHECK(read(source, 4, 10) == stream.substr(4, 10));  // a retransmission reads back
  CHECK(read(source, 15, 10) == stream.substr(15));    // short at the end
}

TEST_CASE("A spooled stream lets go of what was acknowledged and refuses to read it",
          "[udpx][stream]") {
  const auto stream = pattern(5 << 20);
  Producer producer{stream, 1 << 20};
  SpooledStreamSource source(std::ref(producer));
  CHECK(read(source, (3 << 20) + 5, 100) == stream.substr((3 << 20) + 5, 100));
  const auto before = source.held_bytes();
  source.release_below(2 << 20);
  CHECK(source.held_bytes() <= before - (2 << 20));
  std::vector<std::uint8_t> out(10);
  CHECK_FALSE(source.read_at(0, out));
  CHECK(read(source, (2 << 20) + 1, 10) == stream.substr((2 << 20) + 1, 10));
}

TEST_CASE("A spooled stream's producer error fails the read and stays", "[udpx][stream]") {
  int calls = 0;
  SpooledStreamSource source([&](std::string& out, std::size_t) -> Result<bool> {
    if (++calls > 1) return gridftp::make_error(std::make_error_code(std::errc::io_error));
    out.append("0123456789");
    return false;
  });
  CHECK(read(source, 0, 5) == "01234");
  std::vector<std::uint8_t> out(20);
  auto failed = source.read_at(0, out);
  REQUIRE_FALSE(failed);
  CHECK(failed.error() == std::errc::io_error);
  REQUIRE(source.error());
  CHECK_FALSE(source.read_at(0, out));
  CHECK(calls == 2);  // not asked again
}

TEST_CASE("An ordered sink hands blocks on in order whatever order they arrive in",
          "[udpx][stream]") {
  const auto stream = pattern(10 * 7 + 3);
  std::string taken;
  int handed = 0;
  OrderedStreamSink sink(
      [&](std::span<const char> bytes) -> Result<void> {
        taken.append(bytes.data(), bytes.size());
        ++handed;
        return {};
      },
      100, 10, 16);
  auto block = [&](std::size_t k) {
    const auto from = k * 10;
    const auto bytes = stream.substr(from, 10);
    return sink.write_at(
        100 + from, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  };
  for (const std::size_t k : {3u, 1u, 7u, 2u}) REQUIRE(block(k));
  CHECK(taken.empty());
  CHECK(sink.waiting_blocks() == 4);
  REQUIRE(block(0));  // fills the gap: 0..3 go at once
  CHECK(taken == stream.substr(0, 40));
  for (const std::size_t k : {5u, 4u, 6u}) REQUIRE(block(k));
  CHECK(taken == stream);
  CHECK(sink.delivered() == 100 + stream.size());
  CHECK(sink.waiting_blocks() == 0);
  CHECK(handed == 8);
}

TEST_CASE("An ordered sink refuses blocks it cannot place and passes the consumer's error on",
          "[udpx][stream]") {
  bool refuse = false;
  OrderedStreamSink sink(
      [&](std::span<const char>) -> Result<void> {
        if (refuse) return gridftp::make_error(std::make_error_code(std::errc::no_space_on_device));
        return {};
      },
      0, 10, 4);
  const std::vector<std::uint8_t> ten(10, 1);
  const std::vector<std::uint8_t> eleven(11, 1);
  CHECK_FALSE(sink.write_at(5, ten));     // not on a block boundary
  CHECK_FALSE(sink.write_at(40, ten));    // past the window of 4 blocks
  CHECK_FALSE(sink.write_at(0, eleven));  // larger than a block
  REQUIRE(sink.write_at(30, ten));        // the window's last block waits
  REQUIRE(sink.write_at(0, ten));
  CHECK_FALSE(sink.write_at(0, ten));  // already handed on
  refuse = true;
  auto failed = sink.write_at(10, ten);
  REQUIRE_FALSE(failed);
  CHECK(failed.error() == std::errc::no_space_on_device);
}
