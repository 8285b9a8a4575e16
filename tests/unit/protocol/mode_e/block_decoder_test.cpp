#include "protocol/mode_e/block_decoder.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "protocol/mode_e/block_header.hpp"
#include "protocol/mode_e/mode_e_errors.hpp"

using gridftp::protocol::mode_e::BlockDecoder;
using gridftp::protocol::mode_e::BlockHeader;
using gridftp::protocol::mode_e::DecoderEvent;
using gridftp::protocol::mode_e::encode_header;
using gridftp::protocol::mode_e::Errc;
using Kind = gridftp::protocol::mode_e::DecoderEvent::Kind;

namespace {

constexpr std::uint8_t kData = 0x00;
constexpr std::uint8_t kEod = 0x08;
constexpr std::uint8_t kEofEod = 0x48;

// Payload byte at an absolute file offset, so reassembled data can be checked anywhere.
char pattern_byte(std::uint64_t offset) { return static_cast<char>((offset * 31 + 7) % 251); }

std::string pattern(std::uint64_t offset, std::uint64_t count) {
  std::string bytes(count, '\0');
  for (std::uint64_t i = 0; i < count; ++i) bytes[i] = pattern_byte(offset + i);
  return bytes;
}

// One header plus, for data blocks, `count` pattern bytes (or `payload` when given).
std::string block(std::uint8_t descriptors, std::uint64_t count, std::uint64_t offset) {
  const auto header = encode_header({.descriptors = descriptors, .count = count, .offset = offset});
  std::string wire(header.begin(), header.end());
  if ((descriptors & 0x40) == 0) wire += pattern(offset, count);
  return wire;
}

std::string block_with(std::uint8_t descriptors, std::uint64_t offset, std::string_view payload) {
  const auto header =
      encode_header({.descriptors = descriptors, .count = payload.size(), .offset = offset});
  return std::string(header.begin(), header.end()) + std::string(payload);
}

// What a decoder reported, with adjacent Data events merged so any chunking compares equal.
struct Collected {
  struct Item {
    Kind kind;
    std::uint64_t offset = 0;
    std::string data;
    std::uint64_t eod_count = 0;
    bool operator==(const Item&) const = default;
  };
  std::vector<Item> items;
  std::error_code error;

  void add(const DecoderEvent& event) {
    if (event.kind == Kind::NeedMore) return;
    if (event.kind == Kind::Data && !items.empty() && items.back().kind == Kind::Data &&
        items.back().offset + items.back().data.size() == event.offset) {
      items.back().data.append(event.payload.data(), event.payload.size());
      return;
    }
    items.push_back({event.kind, event.offset,
                     std::string(event.payload.data(), event.payload.size()), event.eod_count});
  }
};

// Feeds each chunk with the documented loop and checks the consumption contract on the way.
Collected feed_all(BlockDecoder& decoder, const std::vector<std::span<const char>>& chunks) {
  Collected collected;
  for (auto chunk : chunks) {
    DecoderEvent event;
    do {
      const auto consumed = decoder.next(chunk, event);
      if (!consumed) {
        collected.error = consumed.error();
        return collected;
      }
      REQUIRE(*consumed <= chunk.size());
      chunk = chunk.subspan(*consumed);
      if (event.kind == Kind::NeedMore) REQUIRE(chunk.empty());
      if (event.kind == Kind::Data) REQUIRE_FALSE(event.payload.empty());
      collected.add(event);
    } while (event.kind != Kind::NeedMore);
  }
  return collected;
}

std::span<const char> bytes_of(const std::string& text) { return {text.data(), text.size()}; }

Collected feed_whole(const std::string& wire) {
  BlockDecoder decoder;
  auto collected = feed_all(decoder, {bytes_of(wire)});
  if (!collected.error) CHECK(decoder.at_block_boundary());
  return collected;
}

Collected feed_bytewise(const std::string& wire) {
  BlockDecoder decoder;
  std::vector<std::span<const char>> chunks;
  for (std::size_t i = 0; i < wire.size(); ++i) chunks.push_back(bytes_of(wire).subspan(i, 1));
  return feed_all(decoder, chunks);
}

Collected feed_random(const std::string& wire, std::uint32_t seed, std::size_t max_chunk) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::size_t> size(0, max_chunk);
  std::vector<std::span<const char>> chunks;
  std::size_t at = 0;
  while (at < wire.size()) {
    const auto take = std::min(size(random), wire.size() - at);
    chunks.push_back(bytes_of(wire).subspan(at, take));  // empty chunks included on purpose
    at += take;
  }
  BlockDecoder decoder;
  auto collected = feed_all(decoder, chunks);
  CHECK(decoder.at_block_boundary());
  return collected;
}

using Item = Collected::Item;
Item data_item(std::uint64_t offset, std::uint64_t count) {
  return {Kind::Data, offset, pattern(offset, count), 0};
}
Item eod_item() { return {Kind::Eod, 0, "", 0}; }
Item eof_item(std::uint64_t count) { return {Kind::Eof, 0, "", count}; }
Item close_item() { return {Kind::Close, 0, "", 0}; }

// A compact connection life: two data blocks and EOD for one transfer, then (reuse) the next
// transfer's EOF+EOD, then a data block carrying EOD on its payload.
std::string reuse_stream() {
  return block(kData, 5, 0) + block(kData, 3, 4096) + block(kEod, 0, 0) + block(kEofEod, 0, 2) +
         block(kEod, 4, 100);
}
std::vector<Item> reuse_items() {
  return {data_item(0, 5), data_item(4096, 3), eod_item(), eof_item(2),
          eod_item(),      data_item(100, 4),  eod_item()};
}

}  // namespace

TEST_CASE("BlockDecoder accepts a block split at any byte", "[mode_e]") {
  const auto wire = block_with(kData, 4096, "abc");  // 17 + 3 bytes
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 21)));
  BlockDecoder decoder;
  const auto collected =
      feed_all(decoder, {bytes_of(wire).first(cut), bytes_of(wire).subspan(cut)});
  REQUIRE_FALSE(collected.error);
  REQUIRE(collected.items.size() == 1);
  CHECK(collected.items[0].offset == 4096);
  CHECK(collected.items[0].data == "abc");
  CHECK(decoder.at_block_boundary());
}

TEST_CASE("BlockDecoder decodes a reused connection split at any byte", "[mode_e]") {
  const auto wire = reuse_stream();
  const auto cut = static_cast<std::size_t>(GENERATE_COPY(range(std::size_t{0}, wire.size() + 1)));
  BlockDecoder decoder;
  const auto collected =
      feed_all(decoder, {bytes_of(wire).first(cut), bytes_of(wire).subspan(cut)});
  REQUIRE_FALSE(collected.error);
  CHECK(collected.items == reuse_items());
  CHECK(decoder.at_block_boundary());
}

TEST_CASE("BlockDecoder decodes a reused connection at every pair of cuts", "[mode_e]") {
  const auto wire = reuse_stream();
  for (std::size_t first = 0; first <= wire.size(); ++first) {
    for (std::size_t second = first; second <= wire.size(); ++second) {
      BlockDecoder decoder;
      const auto collected = feed_all(
          decoder, {bytes_of(wire).first(first), bytes_of(wire).subspan(first, second - first),
                    bytes_of(wire).subspan(second)});
      REQUIRE_FALSE(collected.error);
      REQUIRE(collected.items == reuse_items());
    }
  }
}

TEST_CASE("BlockDecoder decodes a reused connection one byte at a time", "[mode_e]") {
  const auto collected = feed_bytewise(reuse_stream());
  REQUIRE_FALSE(collected.error);
  CHECK(collected.items == reuse_items());
}

TEST_CASE("BlockDecoder replays the observed -p 4 get streams", "[mode_e]") {
  // docs/WIRE.md §2.4: server sender, 3,000,000 bytes, 256 KiB blocks, EOF+EOD on conn4.
  const std::vector<std::string> connections{
      block(kData, 262144, 0) + block(kData, 262144, 262144) + block(kData, 262144, 1310720) +
          block(kData, 262144, 2359296) + block(kEod, 0, 0),
      block(kData, 262144, 524288) + block(kData, 262144, 1572864) + block(kData, 262144, 2621440) +
          block(kEod, 0, 0),
      block(kData, 262144, 786432) + block(kData, 262144, 1835008) + block(kData, 116416, 2883584) +
          block(kEod, 0, 0),
      block(kData, 262144, 1048576) + block(kData, 262144, 2097152) + block(kEofEod, 0, 4),
  };
  struct Chunking {
    std::uint32_t seed;
    std::size_t max_chunk;
  };
  // 17-byte chunks split nearly every header; the large ones cover whole blocks at once.
  const auto chunking = GENERATE(values<Chunking>({{1, 17}, {2, 1000}, {3, 65536}, {4, 300000}}));
  const auto seed = chunking.seed;
  const auto max_chunk = chunking.max_chunk;
  std::string file(3000000, '\0');
  std::vector<bool> written(file.size(), false);
  std::uint64_t eods = 0;
  std::uint64_t eof_count = 0;
  std::uint64_t overlapping_bytes = 0;
  for (std::size_t i = 0; i < connections.size(); ++i) {
    const auto collected =
        feed_random(connections[i], seed + static_cast<std::uint32_t>(i), max_chunk);
    REQUIRE_FALSE(collected.error);
    for (const auto& item : collected.items) {
      if (item.kind == Kind::Eod) ++eods;
      if (item.kind == Kind::Eof) eof_count = item.eod_count;
      if (item.kind != Kind::Data) continue;
      for (std::size_t k = 0; k < item.data.size(); ++k) {
        if (written[item.offset + k]) ++overlapping_bytes;
        written[item.offset + k] = true;
        file[item.offset + k] = item.data[k];
      }
    }
  }
  CHECK(overlapping_bytes == 0);
  CHECK(eods == 4);
  CHECK(eof_count == 4);
  CHECK(std::find(written.begin(), written.end(), false) == written.end());
  CHECK(file == pattern(0, 3000000));
}

TEST_CASE("BlockDecoder replays the observed -p 4 put streams", "[mode_e]") {
  // docs/WIRE.md §2.4: client sender, 1 MiB blocks, EOF+EOD first on conn1, bare EODs elsewhere.
  const auto conn1 =
      block(kData, 1048576, 0) + block(kData, 1048576, 1048576) + block(kEofEod, 0, 4);
  const auto conn2 = block(kData, 902848, 2097152) + block(kEod, 0, 0);
  const auto conn3 = block(kEod, 0, 0);
  const auto seed = static_cast<std::uint32_t>(GENERATE(7, 8));
  const auto one = feed_random(conn1, seed, 100000);
  REQUIRE_FALSE(one.error);
  CHECK(one.items == std::vector<Item>{data_item(0, 2097152), eof_item(4), eod_item()});
  const auto two = feed_random(conn2, seed, 100000);
  CHECK(two.items == std::vector<Item>{data_item(2097152, 902848), eod_item()});
  const auto three = feed_bytewise(conn3);
  CHECK(three.items == std::vector<Item>{eod_item()});
}

TEST_CASE("BlockDecoder replays the observed 5-transfer reuse stream", "[mode_e]") {
  // docs/WIRE.md §2.4, conn1 of `-r -fast -p 2`: [MLSD] 00 788 @0, 08 | [a.txt] 48 off=2 |
  // [c.bin] 00 @0, 00 @524288, 08 | [MLSD sub] 48 off=2 | [b.txt] 00 2 @0, 08
  const auto wire = block(kData, 788, 0) + block(kEod, 0, 0) + block(kEofEod, 0, 2) +
                    block(kData, 262144, 0) + block(kData, 262144, 524288) + block(kEod, 0, 0) +
                    block(kEofEod, 0, 2) + block(kData, 2, 0) + block(kEod, 0, 0);
  const std::vector<Item> expected{data_item(0, 788),
                                   eod_item(),
                                   eof_item(2),
                                   eod_item(),
                                   data_item(0, 262144),
                                   data_item(524288, 262144),
                                   eod_item(),
                                   eof_item(2),
                                   eod_item(),
                                   data_item(0, 2),
                                   eod_item()};
  CHECK(feed_whole(wire).items == expected);
  CHECK(feed_random(wire, 42, 5000).items == expected);
}

TEST_CASE("BlockDecoder reports Eof then Eod for an EOF+EOD header", "[mode_e]") {
  const auto wire = block(kEofEod, 0, 4);
  BlockDecoder decoder;
  DecoderEvent event;
  auto consumed = decoder.next(bytes_of(wire), event);
  REQUIRE(consumed);
  CHECK(*consumed == 17);
  CHECK(event.kind == Kind::Eof);
  CHECK(event.eod_count == 4);
  CHECK_FALSE(decoder.at_block_boundary());
  consumed = decoder.next({}, event);
  REQUIRE(consumed);
  CHECK(*consumed == 0);
  CHECK(event.kind == Kind::Eod);
  CHECK(decoder.at_block_boundary());
  consumed = decoder.next({}, event);
  REQUIRE(consumed);
  CHECK(*consumed == 0);
  CHECK(event.kind == Kind::NeedMore);
}

TEST_CASE("BlockDecoder reports a bare EOF without an Eod", "[mode_e]") {
  CHECK(feed_whole(block(0x40, 0, 3)).items == std::vector<Item>{eof_item(3)});
}

TEST_CASE("BlockDecoder skips no payload after an EOF header with a count", "[mode_e]") {
  // Globus reads no payload after EOF even if count != 0: the next 17 bytes are a header.
  const auto eof = encode_header({.descriptors = kEofEod, .count = 5, .offset = 2});
  const auto wire = std::string(eof.begin(), eof.end()) + block(kEod, 0, 0);
  CHECK(feed_whole(wire).items == std::vector<Item>{eof_item(2), eod_item(), eod_item()});
}

TEST_CASE("BlockDecoder reports EOD on a data block after its payload", "[mode_e]") {
  const auto wire = block(kEod, 10, 300);
  CHECK(feed_whole(wire).items == std::vector<Item>{data_item(300, 10), eod_item()});
  CHECK(feed_bytewise(wire).items == std::vector<Item>{data_item(300, 10), eod_item()});
}

TEST_CASE("BlockDecoder reports nothing for an empty block without flags", "[mode_e]") {
  const auto wire = block(kData, 0, 12345) + block(kData, 2, 7);
  BlockDecoder decoder;
  DecoderEvent event;
  const auto consumed = decoder.next(bytes_of(wire).first(17), event);
  REQUIRE(consumed);
  CHECK(*consumed == 17);
  CHECK(event.kind == Kind::NeedMore);
  CHECK(decoder.at_block_boundary());
  CHECK(feed_whole(wire).items == std::vector<Item>{data_item(7, 2)});
}

TEST_CASE("BlockDecoder ignores the legacy EOR flag", "[mode_e]") {
  CHECK(feed_whole(block(0x80, 4, 8)).items == std::vector<Item>{data_item(8, 4)});
}

TEST_CASE("BlockDecoder reports CLOSE after EOD and refuses bytes after it", "[mode_e]") {
  const auto wire = block(0x0C, 0, 0);
  CHECK(feed_whole(wire).items == std::vector<Item>{eod_item(), close_item()});
  CHECK(feed_whole(block(0x04, 0, 0)).items == std::vector<Item>{close_item()});
  CHECK(feed_whole(block(0x4C, 0, 3)).items ==
        std::vector<Item>{eof_item(3), eod_item(), close_item()});

  BlockDecoder decoder;
  const auto more = wire + "x";
  const auto collected = feed_all(decoder, {bytes_of(more)});
  CHECK(collected.items == std::vector<Item>{eod_item(), close_item()});
  CHECK(collected.error == Errc::DataAfterClose);
  CHECK(decoder.is_closed());
}

TEST_CASE("BlockDecoder reports NeedMore for empty input", "[mode_e]") {
  BlockDecoder decoder;
  DecoderEvent event;
  const auto consumed = decoder.next({}, event);
  REQUIRE(consumed);
  CHECK(*consumed == 0);
  CHECK(event.kind == Kind::NeedMore);
  CHECK(decoder.at_block_boundary());
}

TEST_CASE("BlockDecoder is off a block boundary inside a header or payload", "[mode_e]") {
  const auto wire = block(kData, 4, 0);
  BlockDecoder decoder;
  DecoderEvent event;
  REQUIRE(decoder.next(bytes_of(wire).first(1), event));
  CHECK_FALSE(decoder.at_block_boundary());
  REQUIRE(decoder.next(bytes_of(wire).subspan(1, 17), event));
  CHECK(event.kind == Kind::Data);
  CHECK(event.payload.size() == 1);
  CHECK_FALSE(decoder.at_block_boundary());
  REQUIRE(decoder.next(bytes_of(wire).subspan(18), event));
  CHECK(event.offset == 1);
  CHECK(event.payload.size() == 3);
  CHECK(decoder.at_block_boundary());
}

TEST_CASE("BlockDecoder payload is a view into the caller's buffer", "[mode_e]") {
  const auto wire = block_with(kData, 0, "payload");
  BlockDecoder decoder;
  DecoderEvent event;
  REQUIRE(decoder.next(bytes_of(wire), event));
  CHECK(event.payload.data() == wire.data() + 17);
}

TEST_CASE("BlockDecoder rejects descriptor bits GFD.20 leaves undefined", "[mode_e]") {
  const auto descriptors = static_cast<std::uint8_t>(GENERATE(0x01, 0x02, 0x03, 0x09, 0x41, 0xFF));
  const auto collected = feed_whole(block(descriptors, 0, 0));
  CHECK(collected.error == Errc::UnknownDescriptor);
  CHECK(collected.items.empty());
}

TEST_CASE("BlockDecoder rejects suspect and restart-marker blocks", "[mode_e]") {
  CHECK(feed_whole(block(0x20, 3, 0)).error == Errc::SuspectData);
  CHECK(feed_whole(block(0x10, 3, 0)).error == Errc::RestartBlock);
}

TEST_CASE("BlockDecoder bounds offset + count by 2^63", "[mode_e]") {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  constexpr auto kLimit = std::uint64_t{1} << 63;
  struct Case {
    std::uint64_t count;
    std::uint64_t offset;
    bool ok;
  };
  const auto c = GENERATE_COPY(values<Case>({
      {0, kLimit, true},       // ends exactly at 2^63
      {1, kLimit - 1, true},   // last byte an off_t can address
      {1, kLimit, false},      // one past
      {0, kLimit + 1, false},  // offset alone too large
      {kLimit, 0, true},       // a (theoretical) 2^63-byte block at 0
      {kLimit + 1, 0, false},
      {2, kMax, false},  // offset + count wraps around
      {kMax, 1, false},
      {kMax, kMax, false},
  }));
  const auto header = encode_header({.descriptors = kData, .count = c.count, .offset = c.offset});
  BlockDecoder decoder;
  DecoderEvent event;
  const auto consumed =
      decoder.next({reinterpret_cast<const char*>(header.data()), header.size()}, event);
  CHECK(consumed.has_value() == c.ok);
  if (!c.ok) CHECK(consumed.error() == Errc::OffsetOutOfRange);
}

TEST_CASE("BlockDecoder accepts any EOD count in an EOF header", "[mode_e]") {
  // On EOF the offset field is the EOD count, not an offset: eod_tracker judges it.
  const auto count = std::numeric_limits<std::uint64_t>::max();
  CHECK(feed_whole(block(kEofEod, 0, count)).items ==
        std::vector<Item>{eof_item(count), eod_item()});
}

TEST_CASE("BlockDecoder errors are sticky", "[mode_e]") {
  const auto wire = block(0x01, 0, 0);
  BlockDecoder decoder;
  DecoderEvent event;
  CHECK(decoder.next(bytes_of(wire), event).error() == Errc::UnknownDescriptor);
  const auto good = block(kEod, 0, 0);
  CHECK(decoder.next(bytes_of(good), event).error() == Errc::UnknownDescriptor);
  CHECK(decoder.next({}, event).error() == Errc::UnknownDescriptor);
}

TEST_CASE("BlockDecoder errors fail the transfer", "[mode_e]") {
  const auto code = GENERATE(Errc::UnknownDescriptor, Errc::SuspectData, Errc::RestartBlock,
                             Errc::OffsetOutOfRange, Errc::DataAfterClose);
  const std::error_code error = code;
  CHECK(error == gridftp::Condition::TransferFailed);
  CHECK_FALSE(error.message().empty());
}

TEST_CASE("BlockDecoder reports how much of the current header and payload is still to come",
          "[mode_e]") {
  BlockDecoder decoder;
  CHECK(decoder.payload_remaining() == 0);
  CHECK(decoder.header_bytes_needed() == 17);
  const auto header = encode_header(BlockHeader{kData, 100, 0});
  std::string wire(reinterpret_cast<const char*>(header.data()), header.size());
  wire += std::string(100, 'p');
  DecoderEvent event;
  // Five header bytes: twelve still missing, no payload known yet.
  auto used = decoder.next(std::span<const char>(wire).first(5), event);
  REQUIRE(used);
  CHECK(event.kind == Kind::NeedMore);
  CHECK(decoder.header_bytes_needed() == 12);
  CHECK(decoder.payload_remaining() == 0);
  // The rest of the header and 30 payload bytes: 70 payload bytes to come, no header needed.
  used = decoder.next(std::span<const char>(wire).subspan(5, 12 + 30), event);
  REQUIRE(used);
  CHECK(event.kind == Kind::Data);
  CHECK(decoder.payload_remaining() == 70);
  CHECK(decoder.header_bytes_needed() == 0);
  // The last 70: back between blocks.
  std::span<const char> rest = std::span<const char>(wire).subspan(5 + *used);
  while (!rest.empty()) {
    used = decoder.next(rest, event);
    REQUIRE(used);
    rest = rest.subspan(*used);
  }
  CHECK(decoder.payload_remaining() == 0);
  CHECK(decoder.header_bytes_needed() == 17);
}
