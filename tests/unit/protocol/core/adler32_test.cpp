#include "protocol/core/adler32.hpp"

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

using gridftp::protocol::Adler32;

namespace {

std::span<const char> bytes_of(std::string_view text) { return {text.data(), text.size()}; }

std::uint32_t adler32_of(std::string_view text) {
  Adler32 adler;
  adler.update(bytes_of(text));
  return adler.value();
}

// RFC 1950 §9 reference, one modulo per byte: slow but obviously right.
std::uint32_t reference_adler32(std::string_view text) {
  std::uint32_t a = 1;
  std::uint32_t b = 0;
  for (const char c : text) {
    a = (a + static_cast<unsigned char>(c)) % 65521;
    b = (b + a) % 65521;
  }
  return (b << 16) | a;
}

}  // namespace

TEST_CASE("Adler32 matches published and Globus-observed vectors", "[digest]") {
  CHECK(adler32_of("") == 0x00000001U);
  CHECK(adler32_of("Wikipedia") == 0x11E60398U);  // Wikipedia's worked example; Globus agrees
  CHECK(adler32_of("123456789") == 0x091E01DEU);  // globus-gridftp-server 13.24 CKSM
  CHECK(adler32_of("iki") == 0x027D013EU);        // Globus `CKSM ADLER32 1 3` of "Wikipedia"
  CHECK(adler32_of("a") == 0x00620062U);
  CHECK(adler32_of("abc") == 0x024D0127U);
}

TEST_CASE("Adler32 gives the same value however the input is split", "[digest]") {
  const std::string_view text = "Wikipedia";
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 10)));
  Adler32 adler;
  adler.update(bytes_of(text.substr(0, cut)));
  adler.update(bytes_of(text.substr(cut)));
  CHECK(adler.value() == 0x11E60398U);
}

TEST_CASE("Adler32 stays exact across the 5552-byte modulo boundary", "[digest]") {
  // 0xFF bytes make the sums grow fastest, so a late modulo would overflow first here.
  const auto size =
      static_cast<std::size_t>(GENERATE(5551, 5552, 5553, 11103, 11104, 11105, 65536, 1 << 20));
  const std::string ones(size, '\xFF');
  CHECK(adler32_of(ones) == reference_adler32(ones));
}

TEST_CASE("Adler32 agrees with the reference on random data and chunking", "[digest]") {
  std::mt19937 random(static_cast<std::uint32_t>(GENERATE(1, 2, 3, 4, 5)));
  std::uniform_int_distribution<int> byte(0, 255);
  std::string data(100000, '\0');
  for (auto& c : data) c = static_cast<char>(byte(random));
  std::uniform_int_distribution<std::size_t> chunk(0, 9000);
  Adler32 adler;
  std::size_t at = 0;
  while (at < data.size()) {
    const auto take = std::min(chunk(random), data.size() - at);
    adler.update(bytes_of(std::string_view(data).substr(at, take)));
    at += take;
  }
  CHECK(adler.value() == reference_adler32(data));
}

TEST_CASE("Both Adler32 kernels agree with the reference at every block edge and alignment",
          "[digest]") {
  // The AVX2 kernel sums 64 KiB blocks of 32-byte steps, the portable one 32 KiB ones: sizes
  // around those edges, starts off any alignment, and 0xFF bytes (the largest sums) for each.
  const auto size = static_cast<std::size_t>(GENERATE(0, 1, 31, 32, 33, 5552, 32767, 32768, 32769,
                                                      65535, 65536, 65537, 65568, 200003, 2 << 20));
  const auto skew = static_cast<std::size_t>(GENERATE(0, 1, 7, 31));
  const bool saturated = GENERATE(false, true);
  std::string data(size + skew, '\xFF');
  if (!saturated) {
    std::mt19937 random(static_cast<std::uint32_t>(size + skew));
    for (auto& c : data) c = static_cast<char>(random());
  }
  const std::string_view view = std::string_view(data).substr(skew);
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(view.data()),
                                            view.size());
  // From 1 (a fresh checksum) and from a value whose sums are near the modulus.
  const std::uint32_t start = GENERATE(1U, (65520U << 16) | 65520U);
  std::uint32_t expected = start;
  {
    std::uint32_t a = start & 0xFFFFU;
    std::uint32_t b = start >> 16;
    for (const auto byte : bytes) {
      a = (a + byte) % 65521;
      b = (b + a) % 65521;
    }
    expected = (b << 16) | a;
  }
  CHECK(gridftp::protocol::detail::adler32_portable(start, bytes) == expected);
  if (const auto avx2 = gridftp::protocol::detail::adler32_avx2(start, bytes)) {
    CHECK(*avx2 == expected);
  }
}

TEST_CASE("Adler32 accepts unsigned byte spans", "[digest]") {
  const std::vector<std::uint8_t> bytes{'W', 'i', 'k', 'i', 'p', 'e', 'd', 'i', 'a'};
  Adler32 adler;
  adler.update(std::span<const std::uint8_t>(bytes));
  CHECK(adler.value() == 0x11E60398U);
}

TEST_CASE("adler32_combine joins the values of two pieces", "[digest]") {
  using gridftp::protocol::adler32_combine;
  // "Wikipedia" = "Wiki" + "pedia", cut everywhere, including the empty pieces.
  const std::string_view text = "Wikipedia";
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 10)));
  const auto first = text.substr(0, cut);
  const auto second = text.substr(cut);
  CHECK(adler32_combine(adler32_of(first), adler32_of(second), second.size()) == 0x11E60398U);
}

TEST_CASE("adler32_combine stays exact for long and modulus-sized second pieces", "[digest]") {
  using gridftp::protocol::adler32_combine;
  const auto size = static_cast<std::size_t>(GENERATE(65520, 65521, 65522, 200000));
  std::string data(size + 777, '\0');
  std::mt19937 random(static_cast<std::uint32_t>(size));
  for (auto& c : data) c = static_cast<char>(random());
  const std::string_view view(data);
  CHECK(adler32_combine(adler32_of(view.substr(0, 777)), adler32_of(view.substr(777)), size) ==
        reference_adler32(data));
  // A second piece of all 0xFF bytes drives both sums to their largest values.
  const std::string ones(size, '\xFF');
  CHECK(adler32_combine(adler32_of("abc"), adler32_of(ones), size) ==
        reference_adler32("abc" + ones));
}
