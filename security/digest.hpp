// File checksums for `CKSM <alg> <offset> <length> <path>` (GFD.47): MD5/SHA* through OpenSSL EVP,
// Adler-32 and CRC-32C through protocol/core. Output is the reply text Globus writes; reading the
// file range is the caller's job.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

#include "protocol/core/adler32.hpp"
#include "protocol/core/crc32c.hpp"
#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

enum class DigestAlgorithm { Adler32, Md5, Sha1, Sha256, Sha512, Crc32c };

// "ADLER32", "MD5", "SHA1", "SHA256", "SHA512", "CRC32C", case-insensitive (Globus 13.24 accepts
// "adler32" and "Sha1" too). Globus 13.24 itself answers CRC32C with
// "500 Unknown checksum algorithm requested."; we accept it as an extension.
// Errors: protocol::Errc::BadArgument for any other name.
Result<DigestAlgorithm> parse_digest_algorithm(std::string_view name);

// The canonical upper-case name, as in FEAT's "CKSM MD5:10;ADLER32:10;...".
std::string_view digest_algorithm_name(DigestAlgorithm algorithm);

// An ADLER32 or CRC32C value as CKSM prints it: 8 lower-case, zero-padded hex digits.
std::string checksum32_hex(std::uint32_t value);

class Digest {
 public:
  // Errors: an OpenSSL error (openssl_error()) when the EVP digest cannot be fetched or started,
  // e.g. MD5 under a FIPS-only provider.
  static Result<Digest> create(DigestAlgorithm algorithm);

  // Adds bytes. An OpenSSL failure is remembered and reported by hex_final().
  void update(std::span<const char> bytes);

  // Lower-case hex, as Globus prints it: 32/40/64/128 digits for MD5/SHA1/SHA256/SHA512, and 8
  // zero-padded digits for ADLER32 and CRC32C. Call once; the digest is finished afterwards.
  // Observed from globus-gridftp-server 13.24 (`CKSM <alg> 0 -1 <path>`):
  //   ADLER32 "Wikipedia" -> "213 11e60398"; ADLER32 of an empty file -> "213 00000001"
  //   MD5 ""  -> "213 d41d8cd98f00b204e9800998ecf8427e"
  //   SHA256 "abc" -> "213 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
  // Errors: an OpenSSL error from an earlier update() or from finishing;
  // protocol::Errc::BadSequence when called a second time.
  Result<std::string> hex_final();

 private:
  using State = std::variant<protocol::Adler32, protocol::Crc32c, EvpMdCtxPtr>;
  explicit Digest(State state) : state_(std::move(state)) {}

  State state_;
  std::error_code failed_;
  bool finished_ = false;
};

}  // namespace gridftp::security
