// The nonce of one AEAD record or packet, as TLS 1.3 (RFC 8446 §5.3) and QUIC (RFC 9001 §5.3)
// build it: the 64-bit record or packet number, left-padded with zeros to the IV's 12 bytes,
// XOR the IV. Shared by the TLS 1.3 record layer and UDPX's packet protection. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gridftp::security {

inline std::array<std::uint8_t, 12> aead_nonce(const std::array<std::uint8_t, 12>& iv,
                                               std::uint64_t number) {
  std::array<std::uint8_t, 12> nonce = iv;
  for (std::size_t i = 0; i < 8; ++i) {
    nonce[nonce.size() - 1 - i] ^= static_cast<std::uint8_t>(number >> (8 * i));
  }
  return nonce;
}

}  // namespace gridftp::security
