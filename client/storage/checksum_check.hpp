// -verify-checksum (docs/WIRE.md §1.5): digests of a local file range, and the comparison of the
// source's digest with the destination's. The CKSM command itself is Session::checksum().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "client/transfer/transfer_plan.hpp"
#include "protocol/core/result.hpp"
#include "security/digest.hpp"

namespace gridftp::client {

// Digest of `path`'s bytes in `range` (the whole file when nullopt), lower-case hex as CKSM
// replies. Errors: errno from open/read, the Digest's errors.
Result<std::string> local_file_checksum(const std::string& path,
                                        security::DigestAlgorithm algorithm,
                                        const std::optional<PartialRange>& range);

// Errors: ClientErrc::ChecksumMismatch when the digests differ (compared case-insensitively).
Result<void> compare_checksums(std::string_view source, std::string_view dest);

}  // namespace gridftp::client
