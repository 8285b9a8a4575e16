#include "protocol/core/adler32.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace gridftp::protocol {
namespace {

constexpr std::uint32_t kModulus = 65521;

// The portable kernel sums the bytes as kLanes columns: column[j] adds every kLanes-th byte and
// weighted[j] adds column[j] once per row, the row-by-row shape GCC vectorizes at -O2. From the
// two, one row-major pass's a and b follow exactly:
//   a += sum(column);  b += n * a + kLanes * sum(weighted) - sum(j * column[j]).
constexpr std::size_t kLanes = 32;
// weighted[j] <= 255 * rows * (rows + 1) / 2 must fit 32 bits: rows <= 5803. 1024 rows (32 KiB)
// keeps the remainder taken per chunk rare without coming near that bound.
constexpr std::size_t kRowsPerChunk = 1024;

void sum_rows(const unsigned char* data, std::size_t rows,
              std::array<std::uint32_t, kLanes>& column_out,
              std::array<std::uint32_t, kLanes>& weighted_out) {
  // Sums in locals: the caller's arrays could alias `data` (unsigned char aliases anything),
  // which would keep them out of registers.
  std::array<std::uint32_t, kLanes> column{};
  std::array<std::uint32_t, kLanes> weighted{};
  for (std::size_t row = 0; row < rows; ++row, data += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) {
      column[j] += data[j];
      weighted[j] += column[j];
    }
  }
  column_out = column;
  weighted_out = weighted;
}

// The tail, fewer than 32 bytes (or everything, for tiny inputs): RFC 1950's own loop.
void sum_bytes(std::uint64_t& a, std::uint64_t& b, const unsigned char* data, std::size_t size) {
  for (; size > 0; --size, ++data) {
    a += *data;
    b += a;
  }
  a %= kModulus;
  b %= kModulus;
}

void sum_portable(std::uint64_t& a, std::uint64_t& b, const unsigned char* data, std::size_t size) {
  while (size >= kLanes) {
    const std::size_t rows = std::min(size / kLanes, kRowsPerChunk);
    std::array<std::uint32_t, kLanes> column{};
    std::array<std::uint32_t, kLanes> weighted{};
    sum_rows(data, rows, column, weighted);
    data += rows * kLanes;
    const std::uint64_t chunk_bytes = rows * kLanes;
    std::uint64_t column_sum = 0;
    std::uint64_t weighted_sum = 0;
    std::uint64_t position_weight = 0;
    for (std::size_t j = 0; j < kLanes; ++j) {
      column_sum += column[j];
      weighted_sum += weighted[j];
      position_weight += j * std::uint64_t{column[j]};
    }
    // Every term fits 64 bits: a < 65521 before, chunk_bytes <= 32 KiB, weighted_sum < 2^37.
    b = (b + chunk_bytes * a + kLanes * weighted_sum - position_weight) % kModulus;
    a = (a + column_sum) % kModulus;
    size -= chunk_bytes;
  }
  sum_bytes(a, b, data, size);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define GRIDFTP_ADLER32_AVX2 1

__attribute__((target("avx2"))) std::uint64_t lane_sum(__m256i lanes) {
  alignas(32) std::array<std::uint32_t, 8> values{};
  _mm256_store_si256(reinterpret_cast<__m256i*>(values.data()), lanes);
  std::uint64_t sum = 0;
  for (const auto v : values) sum += v;
  return sum;
}

// 32 bytes a step with the byte-multiply instructions (the approach of zlib-ng's and Chromium's
// AVX2 Adler-32). For a block of n 32-byte chunks starting from (a, b), with byte j of the block
// x_j and L = 32n:  b += L*a + sum((L - j) * x_j), and L - j for byte i of chunk k is
// 32*(n-1-k) + (32-i). So per chunk: s1 += the chunk's byte sum (vpsadbw), ps += s1 before
// that (giving sum((n-1-k) * chunk sum_k)), s2 += sum((32-i) * x_i) (vpmaddubsw, vpmaddwd);
// then b += L*a + 32*ps + s2 and a += s1. A lane of ps reaches 1020*n^2, so n <= 2048 keeps it
// in 32 bits.
constexpr std::size_t kChunksPerBlock = 2048;

__attribute__((target("avx2"))) void sum_avx2(std::uint64_t& a, std::uint64_t& b,
                                              const unsigned char* data, std::size_t size) {
  const __m256i weights =
      _mm256_set_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                      23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i zero = _mm256_setzero_si256();
  while (size >= 32) {
    const std::size_t chunks = std::min(size / 32, kChunksPerBlock);
    __m256i s1 = zero;
    __m256i ps = zero;
    __m256i s2 = zero;
    for (std::size_t k = 0; k < chunks; ++k) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + 32 * k));
      ps = _mm256_add_epi32(ps, s1);
      s1 = _mm256_add_epi32(s1, _mm256_sad_epu8(bytes, zero));
      s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, weights), ones));
    }
    const std::uint64_t block_bytes = 32 * chunks;
    b = (b + block_bytes * a + 32 * lane_sum(ps) + lane_sum(s2)) % kModulus;
    a = (a + lane_sum(s1)) % kModulus;
    data += block_bytes;
    size -= block_bytes;
  }
  sum_bytes(a, b, data, size);
}
#endif

using Kernel = void (*)(std::uint64_t&, std::uint64_t&, const unsigned char*, std::size_t);

Kernel chosen_kernel() {
#ifdef GRIDFTP_ADLER32_AVX2
  if (__builtin_cpu_supports("avx2")) return sum_avx2;
#endif
  return sum_portable;
}

std::uint32_t run_kernel(Kernel kernel, std::uint32_t value, const unsigned char* data,
                         std::size_t size) {
  std::uint64_t a = value & 0xFFFFU;
  std::uint64_t b = value >> 16;
  kernel(a, b, data, size);
  return static_cast<std::uint32_t>((b << 16) | a);
}

}  // namespace

void Adler32::update(std::span<const std::uint8_t> bytes) { update(bytes.data(), bytes.size()); }

void Adler32::update(std::span<const char> bytes) {
  // char and unsigned char may alias; this is the one place the view changes type.
  update(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

void Adler32::update(const unsigned char* data, std::size_t size) {
  static const Kernel kernel = chosen_kernel();
  const auto value = run_kernel(kernel, (sum_b_ << 16) | sum_a_, data, size);
  sum_a_ = value & 0xFFFFU;
  sum_b_ = value >> 16;
}

namespace detail {

std::uint32_t adler32_portable(std::uint32_t value, std::span<const std::uint8_t> bytes) {
  return run_kernel(sum_portable, value, bytes.data(), bytes.size());
}

std::optional<std::uint32_t> adler32_avx2(std::uint32_t value,
                                          std::span<const std::uint8_t> bytes) {
#ifdef GRIDFTP_ADLER32_AVX2
  if (__builtin_cpu_supports("avx2"))
    return run_kernel(sum_avx2, value, bytes.data(), bytes.size());
#endif
  (void)value;
  (void)bytes;
  return std::nullopt;
}

}  // namespace detail

std::uint32_t adler32_combine(std::uint32_t first, std::uint32_t second,
                              std::uint64_t second_length) {
  // zlib's adler32_combine: appending B's n bytes to A adds n * a_A to b (less the 1 that B's
  // own a started from, counted n times), and B's sums less their starting values.
  const std::uint64_t n = second_length % kModulus;
  const std::uint64_t first_a = first & 0xFFFFU;
  const std::uint64_t first_b = first >> 16;
  const std::uint64_t second_a = second & 0xFFFFU;
  const std::uint64_t second_b = second >> 16;
  const std::uint64_t a = (first_a + second_a + kModulus - 1) % kModulus;
  const std::uint64_t b = (first_b + second_b + n * first_a + kModulus - n) % kModulus;
  return static_cast<std::uint32_t>((b << 16) | a);
}

}  // namespace gridftp::protocol
