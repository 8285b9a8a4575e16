// Strict decimal parsing for protocol fields: digits only, no sign, no spaces, no overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gridftp {

std::optional<std::uint64_t> parse_decimal(std::string_view digits);

// parse_decimal with an optional k, M or G suffix (either case) multiplying by `unit`, unit^2 or
// unit^3: 1000 for rates ("500M"), 1024 for buffer sizes ("4M"). nullopt on overflow.
std::optional<std::uint64_t> parse_scaled_decimal(std::string_view text, std::uint64_t unit);

}  // namespace gridftp
