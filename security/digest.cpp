#include "security/digest.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <utility>

#include "protocol/core/errors.hpp"
#include "security/openssl_error.hpp"

namespace gridftp::security {
namespace {

struct AlgorithmName {
  DigestAlgorithm algorithm;
  std::string_view name;
};

constexpr std::array<AlgorithmName, 6> kNames{{
    {DigestAlgorithm::Adler32, "ADLER32"},
    {DigestAlgorithm::Md5, "MD5"},
    {DigestAlgorithm::Sha1, "SHA1"},
    {DigestAlgorithm::Sha256, "SHA256"},
    {DigestAlgorithm::Sha512, "SHA512"},
    {DigestAlgorithm::Crc32c, "CRC32C"},
}};

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

std::string to_hex(std::span<const unsigned char> bytes) {
  static constexpr std::string_view kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const auto byte : bytes) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0x0FU];
  }
  return hex;
}

Result<EvpMdCtxPtr> start_evp(const char* name) {
  const EvpMdPtr md(EVP_MD_fetch(nullptr, name, nullptr));
  if (!md) return make_error(openssl_error());
  EvpMdCtxPtr context(EVP_MD_CTX_new());
  if (!context) return make_error(openssl_error());
  // The context takes its own reference to `md`, so md may be released on return.
  if (EVP_DigestInit_ex(context.get(), md.get(), nullptr) != 1) return make_error(openssl_error());
  return context;
}

}  // namespace

Result<DigestAlgorithm> parse_digest_algorithm(std::string_view name) {
  for (const auto& entry : kNames) {
    if (equals_ignoring_case(name, entry.name)) return entry.algorithm;
  }
  return make_error(make_error_code(protocol::Errc::BadArgument));
}

std::string_view digest_algorithm_name(DigestAlgorithm algorithm) {
  for (const auto& entry : kNames) {
    if (entry.algorithm == algorithm) return entry.name;
  }
  return "UNKNOWN";
}

std::string checksum32_hex(std::uint32_t value) {
  // Big-endian bytes, so "%08x" and to_hex agree: Globus prints adler32 as 8 zero-padded digits.
  const std::array<unsigned char, 4> bytes{
      static_cast<unsigned char>(value >> 24), static_cast<unsigned char>(value >> 16),
      static_cast<unsigned char>(value >> 8), static_cast<unsigned char>(value)};
  return to_hex(bytes);
}

Result<Digest> Digest::create(DigestAlgorithm algorithm) {
  const char* evp_name = nullptr;
  switch (algorithm) {
    case DigestAlgorithm::Adler32:
      return Digest(State(protocol::Adler32{}));
    case DigestAlgorithm::Crc32c:
      return Digest(State(protocol::Crc32c{}));
    case DigestAlgorithm::Md5:
      evp_name = "MD5";
      break;
    case DigestAlgorithm::Sha1:
      evp_name = "SHA1";
      break;
    case DigestAlgorithm::Sha256:
      evp_name = "SHA256";
      break;
    case DigestAlgorithm::Sha512:
      evp_name = "SHA512";
      break;
  }
  if (evp_name == nullptr) return make_error(make_error_code(protocol::Errc::BadArgument));
  auto context = start_evp(evp_name);
  if (!context) return make_error(context.error());
  return Digest(State(std::move(*context)));
}

void Digest::update(std::span<const char> bytes) {
  if (failed_ || finished_) return;
  if (auto* adler = std::get_if<protocol::Adler32>(&state_)) {
    adler->update(bytes);
    return;
  }
  if (auto* crc = std::get_if<protocol::Crc32c>(&state_)) {
    crc->update(bytes);
    return;
  }
  auto& context = std::get<EvpMdCtxPtr>(state_);
  if (EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) != 1) failed_ = openssl_error();
}

Result<std::string> Digest::hex_final() {
  if (finished_) return make_error(make_error_code(protocol::Errc::BadSequence));
  finished_ = true;
  if (failed_) return make_error(failed_);
  if (const auto* adler = std::get_if<protocol::Adler32>(&state_))
    return checksum32_hex(adler->value());
  if (const auto* crc = std::get_if<protocol::Crc32c>(&state_)) return checksum32_hex(crc->value());
  auto& context = std::get<EvpMdCtxPtr>(state_);
  std::array<unsigned char, EVP_MAX_MD_SIZE> bytes{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context.get(), bytes.data(), &size) != 1) {
    return make_error(openssl_error());
  }
  return to_hex(std::span(bytes).first(size));
}

}  // namespace gridftp::security
