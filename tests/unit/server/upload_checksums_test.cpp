#include "server/storage/upload_checksums.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "security/digest.hpp"

using gridftp::security::Digest;
using gridftp::security::DigestAlgorithm;
using gridftp::server::storage::UploadChecksums;

namespace {

constexpr std::array kAll{DigestAlgorithm::Adler32, DigestAlgorithm::Md5, DigestAlgorithm::Crc32c,
                          DigestAlgorithm::Sha256};

std::string digest_of(DigestAlgorithm algorithm, std::string_view bytes) {
  auto digest = Digest::create(algorithm);
  REQUIRE(digest.has_value());
  digest->update({bytes.data(), bytes.size()});
  auto hex = digest->hex_final();
  REQUIRE(hex.has_value());
  return *hex;
}

std::string random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (auto& c : bytes) c = static_cast<char>(random());
  return bytes;
}

std::string value_for(const std::vector<UploadChecksums::Value>& values,
                      DigestAlgorithm algorithm) {
  for (const auto& value : values) {
    if (value.algorithm == algorithm) return value.hex;
  }
  return "(none)";
}

struct Block {
  std::uint64_t offset;
  std::size_t length;
};

std::vector<Block> blocks_of(std::size_t size, std::size_t block_bytes) {
  std::vector<Block> blocks;
  for (std::size_t at = 0; at < size; at += block_bytes)
    blocks.push_back({at, std::min(block_bytes, size - at)});
  return blocks;
}

}  // namespace

TEST_CASE("UploadChecksums computes every algorithm from blocks written in order", "[storage]") {
  const auto data = random_bytes(1'000'003, 7);
  UploadChecksums checksums(kAll);
  for (const auto& block : blocks_of(data.size(), 65536))
    checksums.record(block.offset, std::span(data).subspan(block.offset, block.length));
  const auto values = checksums.finish(data.size());
  CHECK(values.size() == kAll.size());
  for (const auto algorithm : kAll)
    CHECK(value_for(values, algorithm) == digest_of(algorithm, data));
}

TEST_CASE("UploadChecksums combines blocks from parallel writers and drops ordered digests",
          "[storage]") {
  const auto data = random_bytes(4'000'001, 8);
  UploadChecksums checksums(kAll);
  // Four writers, each taking every fourth block, as four MODE E streams would; the last block
  // goes first, so the ordered digests see a block out of order whatever the threads do.
  auto blocks = blocks_of(data.size(), 100'000);
  checksums.record(blocks.back().offset,
                   std::span(data).subspan(blocks.back().offset, blocks.back().length));
  blocks.pop_back();
  std::vector<std::thread> writers;
  for (std::size_t stream = 0; stream < 4; ++stream) {
    writers.emplace_back([&, stream] {
      for (std::size_t i = stream; i < blocks.size(); i += 4)
        checksums.record(blocks[i].offset,
                         std::span(data).subspan(blocks[i].offset, blocks[i].length));
    });
  }
  for (auto& writer : writers) writer.join();
  const auto values = checksums.finish(data.size());
  CHECK(values.size() == 2);
  CHECK(value_for(values, DigestAlgorithm::Adler32) == digest_of(DigestAlgorithm::Adler32, data));
  CHECK(value_for(values, DigestAlgorithm::Crc32c) == digest_of(DigestAlgorithm::Crc32c, data));
}

TEST_CASE("UploadChecksums knows nothing for a file its blocks do not cover exactly", "[storage]") {
  const auto data = random_bytes(1000, 9);
  const std::span bytes(data);
  UploadChecksums checksums(kAll);
  checksums.record(0, bytes.first(500));
  checksums.record(600, bytes.subspan(600));  // a gap: a write that never came through us
  CHECK(checksums.finish(data.size()).empty());

  UploadChecksums short_file(kAll);
  short_file.record(0, bytes);
  CHECK(short_file.finish(data.size() + 1).empty());  // the file grew beside the upload
}

TEST_CASE("UploadChecksums of an empty upload are the empty values", "[storage]") {
  UploadChecksums checksums(kAll);
  const auto values = checksums.finish(0);
  CHECK(value_for(values, DigestAlgorithm::Adler32) == "00000001");
  CHECK(value_for(values, DigestAlgorithm::Crc32c) == "00000000");
  CHECK(value_for(values, DigestAlgorithm::Md5) == "d41d8cd98f00b204e9800998ecf8427e");
}

TEST_CASE("UploadChecksums computes an algorithm named twice once", "[storage]") {
  const std::array twice{DigestAlgorithm::Adler32, DigestAlgorithm::Adler32, DigestAlgorithm::Md5,
                         DigestAlgorithm::Md5};
  UploadChecksums checksums(twice);
  checksums.record(0, std::span<const char>("abc", 3));
  const auto values = checksums.finish(3);
  REQUIRE(values.size() == 2);
  CHECK(value_for(values, DigestAlgorithm::Adler32) == "024d0127");
}
