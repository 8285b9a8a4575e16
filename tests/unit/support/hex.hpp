// Hex text to bytes, for test vectors written as the specifications print them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gridftp::testing {

inline std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

}  // namespace gridftp::testing
