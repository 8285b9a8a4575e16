#include "security/tls_record_framing.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"

using gridftp::security::first_tls_record_length;
using gridftp::security::kMaxTlsRecordPayloadBytes;

namespace {

std::string record(unsigned char type, std::size_t payload_bytes) {
  std::string out{static_cast<char>(type), '\x03', '\x03',
                  static_cast<char>((payload_bytes >> 8U) & 0xffU),
                  static_cast<char>(payload_bytes & 0xffU)};
  out.append(payload_bytes, 'x');
  return out;
}

}  // namespace

TEST_CASE("first_tls_record_length waits for the whole record", "[tls]") {
  // The 23-byte app-data record that carries a GSI flag byte under TLS 1.3 (docs/WIRE.md §5.1).
  const auto flag = record(23, 18);
  const auto cut = static_cast<std::size_t>(GENERATE(range(0, 23)));
  auto partial = first_tls_record_length(std::string_view(flag).substr(0, cut));
  REQUIRE(partial);
  CHECK_FALSE(partial->has_value());
  auto whole = first_tls_record_length(flag);
  REQUIRE(whole);
  CHECK(whole->value() == 23);
}

TEST_CASE("first_tls_record_length stops at the record and leaves raw data behind", "[tls]") {
  // PROT C: MODE E bytes (descriptor 0x00, ...) follow the flag record in the same read.
  const auto bytes = record(23, 18) + std::string("\x00\x00\x00\x00", 4);
  auto length = first_tls_record_length(bytes);
  REQUIRE(length);
  CHECK(length->value() == 23);
  CHECK_FALSE(first_tls_record_length(std::string_view(bytes).substr(23)));
}

TEST_CASE("first_tls_record_length rejects what is not a TLS record", "[tls]") {
  CHECK_FALSE(first_tls_record_length(std::string("\x00", 1)));      // MODE E descriptor
  CHECK_FALSE(first_tls_record_length("USER"));                      // FTP text
  CHECK_FALSE(first_tls_record_length(std::string("\x17\x02", 2)));  // SSL 2 major version
  CHECK_FALSE(first_tls_record_length(record(22, kMaxTlsRecordPayloadBytes + 1)));
  CHECK(first_tls_record_length(record(22, kMaxTlsRecordPayloadBytes)));
  for (const int type : {20, 21, 22, 23, 24}) {
    CHECK(first_tls_record_length(record(static_cast<unsigned char>(type), 1)));
  }
}
