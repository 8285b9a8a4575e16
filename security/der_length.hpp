// Finds where the first DER object (tag, length, contents) in a buffer ends, so a reader of an
// unframed byte stream (GSI delegation, docs/WIRE.md §5.2) knows when a whole object has arrived.
// X.690 definite-length encoding only; it does not look inside the contents.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "protocol/core/result.hpp"

namespace gridftp::security {

// Delegation messages are one certificate request or one certificate: a few KB.
inline constexpr std::size_t kMaxDelegationMessageBytes = std::size_t{64} << 10;

// The total size (header + contents) of the first DER object in `bytes`, or std::nullopt when
// `bytes` ends before the header or the contents do ("need more"). Bytes after the object are
// not looked at. Accepts low and high tag numbers and short or long lengths of up to 4 octets.
// Errors: Errc::MalformedDelegation for an indefinite length (0x80: BER, not DER), the reserved
// 0xFF, a length in more octets than needed or than 4, a tag number over 4 octets, or a total
// above `max_bytes` (reported as soon as the header shows it, so a peer cannot make us buffer).
Result<std::optional<std::size_t>> der_object_length(
    std::span<const unsigned char> bytes, std::size_t max_bytes = kMaxDelegationMessageBytes);

}  // namespace gridftp::security
