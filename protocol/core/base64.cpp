#include "protocol/core/base64.hpp"

#include <array>

#include "protocol/core/errors.hpp"

namespace gridftp::protocol {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::uint8_t kInvalid = 0xff;

constexpr std::array<std::uint8_t, 256> make_decode_table() {
  std::array<std::uint8_t, 256> table{};
  table.fill(kInvalid);
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return table;
}

constexpr std::array<std::uint8_t, 256> kDecodeTable = make_decode_table();

// Number of '=' at the end of a padded text; -1 when padding is malformed.
int count_padding(std::string_view text) {
  if (text.size() % 4 != 0) {
    return -1;
  }
  int pads = 0;
  while (pads < 2 && !text.empty() &&
         text[text.size() - 1 - static_cast<std::size_t>(pads)] == '=') {
    ++pads;
  }
  return pads;
}

}  // namespace

std::string encode_base64(std::span<const std::uint8_t> bytes, Base64Padding padding) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t group = (std::uint32_t{bytes[i]} << 16) |
                                (std::uint32_t{bytes[i + 1]} << 8) | std::uint32_t{bytes[i + 2]};
    out += kAlphabet[(group >> 18) & 0x3f];
    out += kAlphabet[(group >> 12) & 0x3f];
    out += kAlphabet[(group >> 6) & 0x3f];
    out += kAlphabet[group & 0x3f];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 0) {
    return out;
  }
  std::uint32_t group = std::uint32_t{bytes[i]} << 16;
  if (rest == 2) {
    group |= std::uint32_t{bytes[i + 1]} << 8;
  }
  out += kAlphabet[(group >> 18) & 0x3f];
  out += kAlphabet[(group >> 12) & 0x3f];
  if (rest == 2) {
    out += kAlphabet[(group >> 6) & 0x3f];
  }
  if (padding == Base64Padding::Padded) {
    out.append(3 - rest, '=');
  }
  return out;
}

std::string encode_base64(std::string_view bytes, Base64Padding padding) {
  // Reinterpreting char as uint8_t is allowed aliasing and keeps one implementation.
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return encode_base64(std::span<const std::uint8_t>(data, bytes.size()), padding);
}

Result<std::vector<std::uint8_t>> decode_base64(std::string_view text, Base64Padding padding) {
  if (padding == Base64Padding::Padded) {
    const int pads = count_padding(text);
    if (pads < 0) {
      return make_error(Errc::BadArgument);
    }
    text.remove_suffix(static_cast<std::size_t>(pads));
  }
  // A lone symbol carries only 6 bits, less than one byte (RFC 4648 §4: never produced).
  if (text.size() % 4 == 1) {
    return make_error(Errc::BadArgument);
  }
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3 + 2);
  std::uint32_t accumulator = 0;
  int bits = 0;
  for (const char c : text) {
    const std::uint8_t value = kDecodeTable[static_cast<unsigned char>(c)];
    if (value == kInvalid) {
      return make_error(Errc::BadArgument);  // includes '=' inside the text and whitespace
    }
    accumulator = (accumulator << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>((accumulator >> bits) & 0xff));
    }
  }
  // RFC 4648 §3.5: left-over bits must be zero, so every byte string has one encoding.
  if ((accumulator & ((1U << bits) - 1)) != 0) {
    return make_error(Errc::BadArgument);
  }
  return out;
}

}  // namespace gridftp::protocol
