// HKDF (RFC 5869) through OpenSSL's KDF, and the HKDF-Expand-Label encoding of its info that
// TLS 1.3 defines (RFC 8446 §7.1). The UDPX key schedule uses it with SHA-256 under its own
// label prefix; the TLS 1.3 record layer (security/tls13_record_cipher) with the hash of the
// negotiated suite. Runs per connection and per key update, never per record or packet.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::security {

// HKDF-Extract(salt, IKM) with `digest` ("SHA256", "SHA384"); `out` is HashLen bytes. An empty
// salt means HashLen zero bytes (RFC 5869 §2.2). Errors: an OpenSSL error.
Result<void> hkdf_extract(const char* digest, std::span<const std::uint8_t> salt,
                          std::span<const std::uint8_t> ikm, std::span<std::uint8_t> out);

// HKDF-Expand-Label(secret, label, context, out.size()) with `label` already carrying its
// prefix ("tls13 key" for TLS, "udpx hs" for UDPX). Errors: Errc::CryptoFailure for a label,
// context or output over 255 bytes; an OpenSSL error.
Result<void> hkdf_expand_label(const char* digest, std::span<const std::uint8_t> secret,
                               std::string_view label, std::span<const std::uint8_t> context,
                               std::span<std::uint8_t> out);

}  // namespace gridftp::security
