// Strict decimal parsing for protocol fields: digits only, no sign, no spaces, no overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gridftp {

std::optional<std::uint64_t> parse_decimal(std::string_view digits);

}  // namespace gridftp
