// The checksums of one upload, computed from its bytes as they are written (docs/ARCHITECTURE.md,
// "Checksums on the fly"). ADLER32 and CRC32C are computed per block and combined in any order,
// so MODE E's parallel streams need no ordering; MD5 and SHA* are fed only while the blocks come
// in file order, and are left for CKSM to compute (and store) once a block comes out of order.
// Not a store: Upload::commit() stores what this knows (server/storage/stored_checksums).
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "protocol/checksum/block_checksums.hpp"
#include "protocol/checksum/in_order_feed.hpp"
#include "security/digest.hpp"

namespace gridftp::server::storage {

class UploadChecksums {
 public:
  struct Value {
    security::DigestAlgorithm algorithm;
    std::string hex;
  };

  // An algorithm whose digest cannot be started (MD5 under a FIPS-only OpenSSL) is left out.
  explicit UploadChecksums(std::span<const security::DigestAlgorithm> algorithms);

  // `bytes` were written at file position `position`. Safe to call from several threads at once
  // (MODE E streams write concurrently): each block's ADLER32/CRC32C is computed on the calling
  // thread, and only the small (position, length, value) record is taken under a lock. The
  // ordered digests are fed under their own lock, which only in-order blocks ever wait on.
  void record(std::uint64_t position, std::span<const char> bytes);

  // The values known for the file as written, `size` bytes long: the combinable ones when the
  // blocks covered exactly [0, size), the ordered ones when they were fed all of it in order.
  // Call once, after the last record().
  std::vector<Value> finish(std::uint64_t size);

 private:
  struct Combinable {
    security::DigestAlgorithm algorithm;
    protocol::checksum::BlockChecksums blocks;
  };
  struct Ordered {
    security::DigestAlgorithm algorithm;
    security::Digest digest;
  };

  // Its size and algorithms are fixed at construction; the blocks are guarded by blocks_mutex_.
  std::vector<Combinable> combinable_;
  std::mutex blocks_mutex_;
  bool has_ordered_ = false;  // fixed at construction
  std::mutex ordered_mutex_;
  protocol::checksum::InOrderFeed feed_;  // guarded by ordered_mutex_
  std::vector<Ordered> ordered_;          // guarded by ordered_mutex_
};

}  // namespace gridftp::server::storage
