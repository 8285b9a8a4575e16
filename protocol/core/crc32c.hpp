// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78; RFC 3720 §12.1 and appendix B.4),
// incremental, table-driven slicing-by-8 in portable C++ (no SSE4.2 intrinsics in protocol/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gridftp::protocol {

class Crc32c {
 public:
  void update(std::span<const std::uint8_t> bytes);
  void update(std::span<const char> bytes);
  // The CRC of everything so far; 0 for no input. update() may continue afterwards.
  std::uint32_t value() const { return ~state_; }

 private:
  void update(const unsigned char* data, std::size_t size);

  std::uint32_t state_ = 0xFFFFFFFFU;
};

}  // namespace gridftp::protocol
