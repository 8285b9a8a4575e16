#include "protocol/udpx/byte_codec.hpp"

#include <algorithm>

#include "protocol/core/big_endian.hpp"

namespace gridftp::protocol::udpx {

std::size_t varint_size(std::uint64_t value) {
  if (value < (1U << 6)) return 1;
  if (value < (1U << 14)) return 2;
  if (value < (1U << 30)) return 4;
  return 8;
}

void ByteWriter::varint(std::uint64_t value) {
  if (failure_ != Errc{}) return;
  if (value > kVarintMax) {
    failure_ = Errc::VarintTooLarge;
    return;
  }
  const auto size = varint_size(value);
  if (!reserve(size)) return;
  // The length code (0..3 for 1, 2, 4, 8 bytes) sits in the top two bits.
  const std::uint64_t code = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
  store_big_endian(&out_[used_], value | (code << (size * 8 - 2)), size);
  used_ += size;
}

void ByteWriter::bytes(std::span<const std::uint8_t> data) {
  if (!reserve(data.size())) return;
  std::copy(data.begin(), data.end(), out_.begin() + static_cast<std::ptrdiff_t>(used_));
  used_ += data.size();
}

void ByteWriter::zeros(std::size_t count) {
  if (!reserve(count)) return;
  std::fill_n(out_.begin() + static_cast<std::ptrdiff_t>(used_), count, std::uint8_t{0});
  used_ += count;
}

Result<std::size_t> ByteWriter::finish() const {
  if (failure_ != Errc{}) return make_error(make_error_code(failure_));
  return used_;
}

std::uint64_t ByteReader::varint() {
  if (!take(1)) return 0;
  const std::size_t size = std::size_t{1} << (in_[used_] >> 6);
  if (!take(size)) return 0;
  const auto raw = load_big_endian(&in_[used_], size);
  used_ += size;
  return raw & ((std::uint64_t{1} << (size * 8 - 2)) - 1);
}

std::span<const std::uint8_t> ByteReader::bytes(std::size_t count) {
  if (!take(count)) return {};
  const auto out = in_.subspan(used_, count);
  used_ += count;
  return out;
}

}  // namespace gridftp::protocol::udpx
