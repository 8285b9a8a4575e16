#include "security/der_length.hpp"

#include <cstdint>

#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

constexpr std::size_t kMaxTagNumberOctets = 4;
constexpr std::size_t kMaxLengthOctets = 4;

Unexpected malformed() { return make_error(Errc::MalformedDelegation); }

}  // namespace

Result<std::optional<std::size_t>> der_object_length(std::span<const unsigned char> bytes,
                                                     std::size_t max_bytes) {
  std::size_t pos = 0;
  if (bytes.empty()) {
    return std::optional<std::size_t>();
  }
  // X.690 8.1.2.4: tag number 31 in the first octet means base-128 octets follow, the last
  // one with bit 8 clear.
  if ((bytes[pos++] & 0x1f) == 0x1f) {
    std::size_t octets = 0;
    for (;;) {
      if (pos == bytes.size()) {
        return std::optional<std::size_t>();
      }
      if (++octets > kMaxTagNumberOctets) {
        return malformed();
      }
      if ((bytes[pos++] & 0x80) == 0) {
        break;
      }
    }
  }
  if (pos == bytes.size()) {
    return std::optional<std::size_t>();
  }
  const unsigned char first = bytes[pos++];
  std::uint64_t length = first;
  if ((first & 0x80) != 0) {
    const std::size_t octets = first & 0x7fU;
    if (octets == 0 || octets > kMaxLengthOctets) {  // 0x80 indefinite, 0xFF reserved
      return malformed();
    }
    if (bytes.size() - pos < octets) {
      return std::optional<std::size_t>();
    }
    length = 0;
    for (std::size_t i = 0; i < octets; ++i) {
      length = (length << 8) | bytes[pos++];
    }
    // X.690 10.1: DER uses the fewest octets; short form below 128, no leading zero octet.
    if (length < 0x80 || (length >> (8 * (octets - 1))) == 0) {
      return malformed();
    }
  }
  const std::uint64_t total = pos + length;
  if (total > max_bytes) {
    return malformed();
  }
  if (total > bytes.size()) {
    return std::optional<std::size_t>();
  }
  return std::optional<std::size_t>(static_cast<std::size_t>(total));
}

}  // namespace gridftp::security
