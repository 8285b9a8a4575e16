#include "security/der_length.hpp"

#include <vector>

#include <catch2/catch.hpp>

#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

using Bytes = std::vector<unsigned char>;

std::optional<std::size_t> length_of(const Bytes& bytes,
                                     std::size_t max = kMaxDelegationMessageBytes) {
  const auto result = der_object_length(bytes, max);
  REQUIRE(result.has_value());
  return *result;
}

Bytes object(Bytes header, std::size_t contents) {
  header.resize(header.size() + contents, 0xab);
  return header;
}

TEST_CASE("der_object_length reads short and long form lengths", "[security][der]") {
  struct Row {
    Bytes header;
    std::size_t contents;
  };
  const Row rows[] = {
      {{0x30, 0x00}, 0},
      {{0x30, 0x01}, 1},
      {{0x30, 0x7f}, 127},
      {{0x30, 0x81, 0x80}, 128},
      {{0x30, 0x81, 0xff}, 255},
      {{0x30, 0x82, 0x01, 0x00}, 256},
      {{0x30, 0x82, 0x03, 0x46}, 838},  // a delegated proxy certificate (docs/WIRE.md §5.2)
      {{0x30, 0x83, 0x01, 0x00, 0x00}, 65536},
      {{0x1f, 0x81, 0x01, 0x02}, 2},  // high tag number form
  };
  for (const Row& row : rows) {
    const Bytes bytes = object(row.header, row.contents);
    CHECK(length_of(bytes, 1 << 20) == bytes.size());
    Bytes with_more = bytes;
    with_more.push_back(0x30);  // the start of the next object is not counted
    CHECK(length_of(with_more, 1 << 20) == bytes.size());
  }
}

TEST_CASE("der_object_length asks for more until the object is complete", "[security][der]") {
  const Bytes whole = object({0x30, 0x82, 0x01, 0x00}, 256);
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    CHECK(length_of(Bytes(whole.begin(), whole.begin() + static_cast<long>(cut))) == std::nullopt);
  }
  CHECK(length_of(Bytes{0x1f}) == std::nullopt);
  CHECK(length_of(Bytes{0x1f, 0x81}) == std::nullopt);
}

TEST_CASE("der_object_length rejects what DER forbids", "[security][der]") {
  const Bytes bad[] = {
      {0x30, 0x80, 0x00, 0x00},              // indefinite length (BER)
      {0x30, 0xff, 0x00},                    // reserved
      {0x30, 0x81, 0x05, 1, 2, 3, 4, 5},     // long form for a short length
      {0x30, 0x82, 0x00, 0x80},              // leading zero octet
      {0x30, 0x85, 1, 0, 0, 0, 0},           // more than 4 length octets
      {0x1f, 0x81, 0x81, 0x81, 0x81, 0x01},  // tag number over 4 octets
  };
  for (const Bytes& bytes : bad) {
    CHECK(der_object_length(bytes).error() == Errc::MalformedDelegation);
  }
}

TEST_CASE("der_object_length refuses objects above the limit from the header alone",
          "[security][der]") {
  const Bytes header{0x30, 0x84, 0x7f, 0xff, 0xff, 0xff};
  CHECK(der_object_length(header).error() == Errc::MalformedDelegation);
  CHECK(der_object_length(Bytes{0x30, 0x82, 0x01, 0x00}, 259).error() == Errc::MalformedDelegation);
  CHECK(length_of(Bytes{0x30, 0x82, 0x01, 0x00}, 260) == std::nullopt);
}

}  // namespace
}  // namespace gridftp::security
