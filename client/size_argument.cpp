#include "client/size_argument.hpp"

#include "protocol/core/decimal.hpp"

namespace gridftp::client {

std::optional<std::uint64_t> parse_size_argument(std::string_view text) {
  constexpr std::uint64_t kBinaryUnit = 1024;  // globus-url-copy: -len 2k copies 2048 bytes
  return parse_scaled_decimal(text, kBinaryUnit);
}

}  // namespace gridftp::client
