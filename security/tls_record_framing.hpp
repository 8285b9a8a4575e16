// Where the first TLS record in a byte buffer ends (RFC 8446 §5.1: type, version, 16-bit length).
// A GSI "clear" data channel (PROT C with DCAU, docs/WIRE.md §5.7) drops TLS right after the flag
// record, and the peer's raw MODE E bytes may follow in the same read, so the handshake must be
// fed whole records only. Pure.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::security {

inline constexpr std::size_t kTlsRecordHeaderBytes = 5;
// RFC 8446 §5.2: ciphertext is at most 2^14 + 256 bytes; TLS 1.2 allows 2^14 + 2048.
inline constexpr std::size_t kMaxTlsRecordPayloadBytes = 16384 + 2048;

// Length of the first record, header included, when all of it is in `bytes`; nullopt when more
// bytes are needed. Errors: Errc::BadReply when the header is not a TLS record (content type
// outside 20..24, major version not 3, or an impossible length).
Result<std::optional<std::size_t>> first_tls_record_length(std::string_view bytes);

}  // namespace gridftp::security
