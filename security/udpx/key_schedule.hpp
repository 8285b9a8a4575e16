// The UDPX key schedule (docs/UDPX.md §4.2): HKDF-SHA256 (RFC 5869) with labels encoded as in
// TLS 1.3's HKDF-Expand-Label (RFC 8446 §7.1), so the construction is one that has been
// analysed, under its own "udpx " prefix so no UDPX key can equal a TLS key. Runs once per
// connection and once per key update, never per packet.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/core/result.hpp"

namespace gridftp::security::udpx {

inline constexpr std::size_t kSecretBytes = 32;
inline constexpr std::size_t kKeyBytes = 16;  // AES-128-GCM
inline constexpr std::size_t kIvBytes = 12;
inline constexpr std::string_view kLabelPrefix = "udpx ";

using Secret = std::array<std::uint8_t, kSecretBytes>;

struct PacketKeys {
  std::array<std::uint8_t, kKeyBytes> key{};
  std::array<std::uint8_t, kIvBytes> iv{};
};

// HKDF-Extract(salt, IKM) with SHA-256. An empty salt means 32 zero bytes (RFC 5869 §2.2).
Result<Secret> hkdf_extract(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm);

// HKDF-Expand-Label as RFC 8446 §7.1 encodes it, with `label` already carrying its prefix
// ("tls13 derived" for TLS, "udpx hs" for us): fills `out` (at most 255 bytes).
Result<void> hkdf_expand_label(std::span<const std::uint8_t> secret, std::string_view label,
                               std::span<const std::uint8_t> context, std::span<std::uint8_t> out);

// The four secrets of one connection, named by active/passive side rather than by sender,
// because one connection can carry transfers both ways.
struct ConnectionSecrets {
  Secret handshake_a2p{};
  Secret handshake_p2a{};
  Secret traffic_a2p{};
  Secret traffic_p2a{};
};

// The two handshake secrets: from the connection secret alone, so the passive side can open a
// HELLO as soon as it knows which secret the HELLO's random selects.
struct HandshakeSecrets {
  Secret a2p{};
  Secret p2a{};
};
Result<HandshakeSecrets> derive_handshake_secrets(const Secret& connection_secret);

// The two traffic secrets: from the connection secret and both sides' HELLO randoms.
struct TrafficSecrets {
  Secret a2p{};
  Secret p2a{};
};
Result<TrafficSecrets> derive_traffic_secrets(const Secret& connection_secret,
                                              std::span<const std::uint8_t> random_active,
                                              std::span<const std::uint8_t> random_passive);

// Fills `out` from OpenSSL's CSPRNG (HELLO randoms). Errors: an OpenSSL error.
Result<void> fill_random(std::span<std::uint8_t> out);

// All four at once, from the connection secret (a TLS exporter value) and both randoms.
Result<ConnectionSecrets> derive_connection_secrets(const Secret& connection_secret,
                                                    std::span<const std::uint8_t> random_active,
                                                    std::span<const std::uint8_t> random_passive);

// AES-128-GCM key and IV of one secret.
Result<PacketKeys> derive_packet_keys(const Secret& secret);

// The traffic secret after a key update.
Result<Secret> next_traffic_secret(const Secret& current);

}  // namespace gridftp::security::udpx
