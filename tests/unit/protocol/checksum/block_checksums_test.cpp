#include "protocol/checksum/block_checksums.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/core/adler32.hpp"
#include "protocol/core/crc32c.hpp"

using gridftp::protocol::checksum::BlockChecksums;
using gridftp::protocol::checksum::CombinableChecksum;

namespace {

std::uint32_t checksum_of(CombinableChecksum kind, std::string_view bytes) {
  const std::span<const char> span(bytes.data(), bytes.size());
  if (kind == CombinableChecksum::Adler32) {
    gridftp::protocol::Adler32 adler;
    adler.update(span);
    return adler.value();
  }
  gridftp::protocol::Crc32c crc;
  crc.update(span);
  return crc.value();
}

struct Block {
  std::uint64_t offset;
  std::uint64_t length;
};

// `text` cut at `cuts`, each piece added with its own checksum, in the order given by `order`.
void add_pieces(BlockChecksums& blocks, CombinableChecksum kind, std::string_view text,
                const std::vector<Block>& pieces) {
  for (const auto& piece : pieces) {
    blocks.add(piece.offset, piece.length,
               checksum_of(kind, text.substr(piece.offset, piece.length)));
  }
}

}  // namespace

TEST_CASE("BlockChecksums answers published values from blocks in any order", "[checksum]") {
  const std::string_view text = "123456789";
  // Three blocks in every order: the middle one first joins nothing until a neighbour comes.
  std::vector<Block> pieces{{0, 2}, {2, 4}, {6, 3}};
  std::sort(pieces.begin(), pieces.end(),
            [](const Block& a, const Block& b) { return a.offset < b.offset; });
  do {
    BlockChecksums adler(CombinableChecksum::Adler32);
    BlockChecksums crc(CombinableChecksum::Crc32c);
    add_pieces(adler, CombinableChecksum::Adler32, text, pieces);
    add_pieces(crc, CombinableChecksum::Crc32c, text, pieces);
    CHECK(adler.whole(9) == 0x091E01DEU);  // globus-gridftp-server 13.24 CKSM ADLER32
    CHECK(crc.whole(9) == 0xE3069283U);    // the CRC-32C check value
    CHECK(adler.run_count() == 1);
  } while (std::next_permutation(pieces.begin(), pieces.end(), [](const Block& a, const Block& b) {
    return a.offset < b.offset;
  }));
}

TEST_CASE("BlockChecksums equals one pass for random splits in random order", "[checksum]") {
  const auto kind = GENERATE(CombinableChecksum::Adler32, CombinableChecksum::Crc32c);
  std::mt19937 random(static_cast<std::uint32_t>(GENERATE(1, 2, 3, 4, 5, 6, 7, 8)));
  std::string data(static_cast<std::size_t>(random() % 300000), '\0');
  for (auto& c : data) c = static_cast<char>(random());
  std::vector<Block> pieces;
  for (std::uint64_t at = 0; at < data.size();) {
    const auto length = std::min<std::uint64_t>(1 + random() % 70000, data.size() - at);
    pieces.push_back({at, length});
    at += length;
  }
  std::shuffle(pieces.begin(), pieces.end(), random);
  BlockChecksums blocks(kind);
  add_pieces(blocks, kind, data, pieces);
  CHECK(blocks.whole(data.size()) == checksum_of(kind, data));
  CHECK_FALSE(blocks.whole(data.size() + 1));
}

TEST_CASE("BlockChecksums of an empty file is the empty value", "[checksum]") {
  CHECK(BlockChecksums(CombinableChecksum::Adler32).whole(0) == 1U);
  CHECK(BlockChecksums(CombinableChecksum::Crc32c).whole(0) == 0U);
  BlockChecksums blocks(CombinableChecksum::Adler32);
  blocks.add(0, 0, 1);  // empty blocks are no blocks
  CHECK(blocks.whole(0) == 1U);
  CHECK(blocks.run_count() == 0);
}

TEST_CASE("BlockChecksums is unknown unless the blocks cover the file exactly", "[checksum]") {
  const std::string_view text = "Wikipedia";
  const auto kind = CombinableChecksum::Adler32;
  BlockChecksums blocks(kind);
  add_pieces(blocks, kind, text, {{0, 3}, {5, 4}});
  CHECK_FALSE(blocks.whole(9));  // a gap at [3, 5)
  CHECK(blocks.run_count() == 2);
  add_pieces(blocks, kind, text, {{3, 2}});
  CHECK(blocks.whole(9) == 0x11E60398U);
  CHECK_FALSE(blocks.whole(8));   // bytes past the end of the file
  CHECK_FALSE(blocks.whole(10));  // the file is longer than what arrived

  BlockChecksums late_start(kind);  // an append or a restart: the start is missing
  add_pieces(late_start, kind, text, {{2, 7}});
  CHECK_FALSE(late_start.whole(9));
  CHECK_FALSE(late_start.whole(7));
}

TEST_CASE("BlockChecksums gives up on any overlap", "[checksum]") {
  const std::string_view text = "Wikipedia";
  const auto kind = CombinableChecksum::Crc32c;
  const auto overlapping = GENERATE(Block{0, 9}, Block{0, 1}, Block{2, 1}, Block{3, 3}, Block{1, 4},
                                    Block{5, 4}, Block{8, 1}, Block{2, 5});
  BlockChecksums blocks(kind);
  add_pieces(blocks, kind, text, {{0, 3}, {5, 4}});
  add_pieces(blocks, kind, text, {overlapping});
  CHECK(blocks.is_given_up());
  add_pieces(blocks, kind, text, {{3, 2}});
  CHECK_FALSE(blocks.whole(9));
  CHECK(blocks.run_count() == 0);
}

TEST_CASE("BlockChecksums gives up past 2^64 and past kMaxRuns runs", "[checksum]") {
  BlockChecksums wrapping(CombinableChecksum::Adler32);
  wrapping.add(UINT64_MAX - 1, 4, 1);
  CHECK(wrapping.is_given_up());

  BlockChecksums scattered(CombinableChecksum::Adler32);
  for (std::uint64_t run = 0; run < BlockChecksums::kMaxRuns; ++run) scattered.add(run * 2, 1, 1);
  CHECK_FALSE(scattered.is_given_up());
  scattered.add(BlockChecksums::kMaxRuns * 2, 1, 1);
  CHECK(scattered.is_given_up());
  CHECK(scattered.run_count() == 0);
}
