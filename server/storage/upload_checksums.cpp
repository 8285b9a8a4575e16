#include "server/storage/upload_checksums.hpp"

#include <algorithm>
#include <array>

#include "protocol/core/adler32.hpp"
#include "protocol/core/crc32c.hpp"

namespace gridftp::server::storage {
namespace {

using protocol::checksum::CombinableChecksum;
using security::DigestAlgorithm;

bool is_combinable(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::Adler32 || algorithm == DigestAlgorithm::Crc32c;
}

CombinableChecksum combinable_kind(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::Adler32 ? CombinableChecksum::Adler32
                                               : CombinableChecksum::Crc32c;
}

std::uint32_t checksum_of(CombinableChecksum kind, std::span<const char> bytes) {
  if (kind == CombinableChecksum::Adler32) {
    protocol::Adler32 adler;
    adler.update(bytes);
    return adler.value();
  }
  protocol::Crc32c crc;
  crc.update(bytes);
  return crc.value();
}

}  // namespace

UploadChecksums::UploadChecksums(std::span<const DigestAlgorithm> algorithms) {
  std::vector<DigestAlgorithm> seen;
  for (const auto algorithm : algorithms) {
    if (std::find(seen.begin(), seen.end(), algorithm) != seen.end()) continue;
    seen.push_back(algorithm);
    if (is_combinable(algorithm)) {
      combinable_.push_back(
          {algorithm, protocol::checksum::BlockChecksums(combinable_kind(algorithm))});
      continue;
    }
    if (auto digest = security::Digest::create(algorithm))
      ordered_.push_back({algorithm, std::move(*digest)});
  }
  has_ordered_ = !ordered_.empty();
}

void UploadChecksums::record(std::uint64_t position, std::span<const char> bytes) {
  if (bytes.empty()) return;
  // combinable_ never changes size after construction (at most ADLER32 and CRC32C), so its
  // algorithms may be read here, and the values computed, before the lock.
  std::array<std::uint32_t, 2> values{};
  for (std::size_t i = 0; i < combinable_.size(); ++i)
    values.at(i) = checksum_of(combinable_kind(combinable_[i].algorithm), bytes);
  if (!combinable_.empty()) {
    const std::lock_guard lock(blocks_mutex_);
    for (std::size_t i = 0; i < combinable_.size(); ++i)
      combinable_[i].blocks.add(position, bytes.size(), values.at(i));
  }
  if (!has_ordered_) return;
  const std::lock_guard lock(ordered_mutex_);
  if (!feed_.accept(position, bytes.size())) {
    ordered_.clear();  // out of order: nothing more to feed, and the digests' memory goes now
    return;
  }
  for (auto& ordered : ordered_) ordered.digest.update(bytes);
}

std::vector<UploadChecksums::Value> UploadChecksums::finish(std::uint64_t size) {
  std::vector<Value> values;
  {
    const std::lock_guard lock(blocks_mutex_);
    for (const auto& combinable : combinable_) {
      if (const auto whole = combinable.blocks.whole(size))
        values.push_back({combinable.algorithm, security::checksum32_hex(*whole)});
    }
  }
  const std::lock_guard lock(ordered_mutex_);
  if (!feed_.covers(size)) return values;
  for (auto& ordered : ordered_) {
    if (auto hex = ordered.digest.hex_final()) values.push_back({ordered.algorithm, *hex});
  }
  ordered_.clear();
  return values;
}

}  // namespace gridftp::server::storage
