#include "protocol/core/adler32.hpp"

#include <algorithm>
#include <cstddef>

namespace gridftp::protocol {
namespace {

constexpr std::uint32_t kModulus = 65521;
// RFC 1950 / zlib: the most bytes that can be summed before sum_b can overflow 32 bits.
constexpr std::size_t kMaxBytesBeforeModulo = 5552;

}  // namespace

void Adler32::update(std::span<const std::uint8_t> bytes) { update(bytes.data(), bytes.size()); }

void Adler32::update(std::span<const char> bytes) {
  // char and unsigned char may alias; this is the one place the view changes type.
  update(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

void Adler32::update(const unsigned char* data, std::size_t size) {
  auto a = sum_a_;
  auto b = sum_b_;
  while (size > 0) {
    auto chunk = std::min(size, kMaxBytesBeforeModulo);
    size -= chunk;
    // Eight bytes per step with a fixed trip count, so the compiler unrolls it.
    for (; chunk >= 8; chunk -= 8, data += 8) {
      for (std::size_t i = 0; i < 8; ++i) {
        a += data[i];
        b += a;
      }
    }
    for (; chunk > 0; --chunk, ++data) {
      a += *data;
      b += a;
    }
    a %= kModulus;
    b %= kModulus;
  }
  sum_a_ = a;
  sum_b_ = b;
}

}  // namespace gridftp::protocol
