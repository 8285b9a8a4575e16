// Adler-32 (RFC 1950 §8.2), incremental, as used by `CKSM ADLER32`. Pure; the hex form Globus
// prints lives in security/digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gridftp::protocol {

class Adler32 {
 public:
  void update(std::span<const std::uint8_t> bytes);
  void update(std::span<const char> bytes);
  // The checksum of everything so far; 1 for no input. update() may continue afterwards.
  std::uint32_t value() const { return (sum_b_ << 16) | sum_a_; }

 private:
  void update(const unsigned char* data, std::size_t size);

  std::uint32_t sum_a_ = 1;
  std::uint32_t sum_b_ = 0;
};

}  // namespace gridftp::protocol
