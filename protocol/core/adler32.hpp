// Adler-32 (RFC 1950 §8.2), incremental, as used by `CKSM ADLER32`. Pure; the hex form Globus
// prints lives in security/digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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

// The Adler-32 of A followed by B, from A's value, B's value and B's length (zlib's
// adler32_combine), so blocks checksummed apart, in any order, give the whole file's value.
std::uint32_t adler32_combine(std::uint32_t first, std::uint32_t second,
                              std::uint64_t second_length);

// The two kernels behind Adler32::update, for tests that check each against the reference: the
// portable one, and the AVX2 one (nullopt on a CPU without AVX2). Both continue from `value`.
namespace detail {
std::uint32_t adler32_portable(std::uint32_t value, std::span<const std::uint8_t> bytes);
std::optional<std::uint32_t> adler32_avx2(std::uint32_t value, std::span<const std::uint8_t> bytes);
}  // namespace detail

}  // namespace gridftp::protocol
