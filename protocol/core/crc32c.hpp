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

// The CRC-32C of A followed by B, from A's value, B's value and B's length (zlib's
// crc32_combine for this polynomial): A's CRC is carried through len(B) zero bytes, O(log len).
std::uint32_t crc32c_combine(std::uint32_t first, std::uint32_t second,
                             std::uint64_t second_length);

}  // namespace gridftp::protocol
