// Big-endian integers and QUIC variable-length integers (RFC 9000 §16: the top two bits of the
// first byte give a length of 1, 2, 4 or 8 bytes; values up to 2^62 - 1) over caller-owned
// buffers: UDPX builds and parses every packet in place, with no allocation (docs/UDPX.md §1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/core/big_endian.hpp"
#include "protocol/core/result.hpp"
#include "protocol/udpx/udpx_errors.hpp"

namespace gridftp::protocol::udpx {

inline constexpr std::uint64_t kVarintMax = (std::uint64_t{1} << 62) - 1;

// Bytes a varint of `value` takes (1, 2, 4 or 8); values above kVarintMax are not encodable.
std::size_t varint_size(std::uint64_t value);

// Appends to a fixed span. The first failure sticks: later writes do nothing, and ok() stays
// false, so an encoder checks once at the end. The fixed-width fields are defined here, inline:
// every packet is built and parsed field by field, and a call per field cost the engine about
// 2 % of its CPU (bench/README.md, "udpx_cpu_bench.py").
class ByteWriter {
 public:
  explicit ByteWriter(std::span<std::uint8_t> out) : out_(out) {}

  void u8(std::uint8_t value) { fixed(value, 1); }
  void u16(std::uint16_t value) { fixed(value, 2); }
  void u32(std::uint32_t value) { fixed(value, 4); }
  void u64(std::uint64_t value) { fixed(value, 8); }
  void varint(std::uint64_t value);
  void bytes(std::span<const std::uint8_t> data);
  void zeros(std::size_t count);

  std::size_t size() const { return used_; }
  std::size_t remaining() const { return out_.size() - used_; }
  // The error that stopped writing, if any (BufferTooSmall or VarintTooLarge).
  Result<std::size_t> finish() const;

 private:
  bool reserve(std::size_t count) {
    if (failure_ != Errc{}) return false;
    if (count > remaining()) {
      failure_ = Errc::BufferTooSmall;
      return false;
    }
    return true;
  }
  void fixed(std::uint64_t value, std::size_t count) {
    if (!reserve(count)) return;
    store_big_endian(&out_[used_], value, count);
    used_ += count;
  }

  std::span<std::uint8_t> out_;
  std::size_t used_ = 0;
  Errc failure_{};
};

// Reads from a span; the first failure sticks the same way (Truncated).
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> in) : in_(in) {}

  std::uint8_t u8() { return static_cast<std::uint8_t>(fixed(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(fixed(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(fixed(4)); }
  std::uint64_t u64() { return fixed(8); }
  std::uint64_t varint();
  std::span<const std::uint8_t> bytes(std::size_t count);

  std::size_t remaining() const { return in_.size() - used_; }
  bool ok() const { return !failed_; }
  std::span<const std::uint8_t> rest() const { return in_.subspan(used_); }

 private:
  bool take(std::size_t count) {
    if (failed_ || count > remaining()) {
      failed_ = true;
      return false;
    }
    return true;
  }
  std::uint64_t fixed(std::size_t count) {
    if (!take(count)) return 0;
    const auto value = load_big_endian(&in_[used_], count);
    used_ += count;
    return value;
  }

  std::span<const std::uint8_t> in_;
  std::size_t used_ = 0;
  bool failed_ = false;
};

}  // namespace gridftp::protocol::udpx
