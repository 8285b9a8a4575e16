// Base64 codec of RFC 4648 §4 (standard alphabet), used for ADAT/GSI tokens and password hashes.
// Pure and strict: no whitespace, no URL-safe alphabet, no non-canonical trailing bits.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/core/result.hpp"

namespace gridftp::protocol {

enum class Base64Padding {
  Padded,    // length a multiple of 4, '=' fills the last quantum (RFC 4648 §4)
  Unpadded,  // '=' never appears (RFC 4648 §3.2 allows this where the length is known)
};

std::string encode_base64(std::span<const std::uint8_t> bytes,
                          Base64Padding padding = Base64Padding::Padded);
std::string encode_base64(std::string_view bytes, Base64Padding padding = Base64Padding::Padded);

// Decodes text written in exactly the given padding form.
// Errors: Errc::BadArgument for a character outside the alphabet, '=' where the form does not
// allow it, an impossible length, or non-zero bits after the last byte (RFC 4648 §3.5).
Result<std::vector<std::uint8_t>> decode_base64(std::string_view text,
                                                Base64Padding padding = Base64Padding::Padded);

}  // namespace gridftp::protocol
