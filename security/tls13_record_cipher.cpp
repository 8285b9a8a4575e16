#include "security/tls13_record_cipher.hpp"

#include <limits>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "protocol/core/errors.hpp"
#include "security/aead_nonce.hpp"
#include "security/hkdf.hpp"
#include "security/openssl_error.hpp"
#include "security/security_errors.hpp"
#include "security/tls_engine.hpp"

namespace gridftp::security {
namespace {

struct SuiteParameters {
  const char* cipher;
  const char* digest;
  std::size_t key_bytes;
  std::size_t hash_bytes;
};

SuiteParameters parameters(Tls13Suite suite) {
  switch (suite) {
    case Tls13Suite::Aes128GcmSha256:
      return {"AES-128-GCM", "SHA256", 16, 32};
    case Tls13Suite::Aes256GcmSha384:
      return {"AES-256-GCM", "SHA384", 32, 48};
    case Tls13Suite::Chacha20Poly1305Sha256:
      return {"ChaCha20-Poly1305", "SHA256", 32, 32};
  }
  return {"AES-128-GCM", "SHA256", 16, 32};
}

constexpr std::uint8_t kLegacyVersionMajor = 3;
constexpr std::uint8_t kLegacyVersionMinor = 3;

}  // namespace

std::optional<Tls13Suite> tls13_suite(std::uint16_t iana_id) {
  switch (iana_id) {
    case 0x1301:
      return Tls13Suite::Aes128GcmSha256;
    case 0x1302:
      return Tls13Suite::Aes256GcmSha384;
    case 0x1303:
      return Tls13Suite::Chacha20Poly1305Sha256;
    default:
      return std::nullopt;
  }
}

Result<Tls13RecordCipher> Tls13RecordCipher::create(Tls13Suite suite,
                                                    std::span<const std::uint8_t> traffic_secret,
                                                    Direction direction) {
  Tls13RecordCipher cipher(suite, direction);
  if (auto keyed = cipher.rekey(traffic_secret); !keyed) return make_error(keyed.error());
  return cipher;
}

Tls13RecordCipher::~Tls13RecordCipher() {
  if (!secret_.empty()) OPENSSL_cleanse(secret_.data(), secret_.size());
  OPENSSL_cleanse(iv_.data(), iv_.size());
}

Result<void> Tls13RecordCipher::rekey(std::span<const std::uint8_t> traffic_secret) {
  const auto suite = parameters(suite_);
  if (traffic_secret.size() != suite.hash_bytes) return make_error(Errc::CryptoFailure);
  // RFC 8446 §7.3: [sender]_write_key and _iv from the traffic secret.
  std::array<std::uint8_t, 32> key{};
  const auto key_span = std::span<std::uint8_t>(key).first(suite.key_bytes);
  auto derived = hkdf_expand_label(suite.digest, traffic_secret, "tls13 key", {}, key_span);
  if (derived) derived = hkdf_expand_label(suite.digest, traffic_secret, "tls13 iv", {}, iv_);
  if (!derived) {
    OPENSSL_cleanse(key.data(), key.size());
    return make_error(derived.error());
  }
  const EvpCipherPtr cipher(EVP_CIPHER_fetch(nullptr, suite.cipher, nullptr));
  EvpCipherCtxPtr context(cipher ? EVP_CIPHER_CTX_new() : nullptr);
  const bool keyed =
      context && EVP_CipherInit_ex2(context.get(), cipher.get(), key.data(), nullptr,
                                    direction_ == Direction::Seal ? 1 : 0, nullptr) == 1;
  OPENSSL_cleanse(key.data(), key.size());
  if (!keyed) return make_error(openssl_error());
  if (!secret_.empty()) OPENSSL_cleanse(secret_.data(), secret_.size());
  secret_.assign(traffic_secret.begin(), traffic_secret.end());
  context_ = std::move(context);
  sequence_ = 0;
  ++key_generation_;
  return {};
}

Result<Tls13RecordCipher> Tls13RecordCipher::copy() const {
  Tls13RecordCipher copy(suite_, direction_);
  copy.context_.reset(EVP_CIPHER_CTX_new());
  if (!copy.context_ || EVP_CIPHER_CTX_copy(copy.context_.get(), context_.get()) != 1) {
    return make_error(openssl_error());
  }
  copy.iv_ = iv_;
  copy.sequence_ = sequence_;
  copy.key_generation_ = key_generation_;
  return copy;  // without the secret: a copy never updates its key
}

Result<void> Tls13RecordCipher::skip(std::uint64_t records) {
  if (records >= std::numeric_limits<std::uint64_t>::max() - sequence_) {
    return make_error(TlsErrc::Fatal);
  }
  sequence_ += records;
  return {};
}

Result<void> Tls13RecordCipher::update() {
  // RFC 8446 §7.2: application_traffic_secret_N+1 = HKDF-Expand-Label(secret_N, "traffic upd",
  // "", Hash.length).
  std::vector<std::uint8_t> next(secret_.size());
  auto derived =
      hkdf_expand_label(parameters(suite_).digest, secret_, "tls13 traffic upd", {}, next);
  if (derived) derived = rekey(next);
  OPENSSL_cleanse(next.data(), next.size());
  return derived;
}

Result<void> Tls13RecordCipher::start_record(
    std::span<const std::uint8_t, kTls13HeaderBytes> header) {
  // A record number must never repeat under one key; the last one is never used.
  if (sequence_ == std::numeric_limits<std::uint64_t>::max()) return make_error(TlsErrc::Fatal);
  const auto nonce = aead_nonce(iv_, sequence_++);
  int written = 0;
  // The record header is the additional data (RFC 8446 §5.2).
  if (EVP_CipherInit_ex(context_.get(), nullptr, nullptr, nullptr, nonce.data(), -1) != 1 ||
      EVP_CipherUpdate(context_.get(), nullptr, &written, header.data(),
                       static_cast<int>(header.size())) != 1) {
    return make_error(openssl_error());
  }
  return {};
}

Result<std::size_t> Tls13RecordCipher::seal(ContentType type, std::span<const char> content,
                                            std::span<char> out) {
  const std::size_t record_bytes = tls13_record_bytes(content.size());
  if (direction_ != Direction::Seal || content.size() > kTls13MaxPlaintextBytes ||
      out.size() < record_bytes) {
    return make_error(protocol::Errc::BadArgument);
  }
  const std::size_t ciphertext_bytes = record_bytes - kTls13HeaderBytes;
  auto* header = reinterpret_cast<std::uint8_t*>(out.data());
  header[0] = static_cast<std::uint8_t>(ContentType::ApplicationData);  // opaque_type
  header[1] = kLegacyVersionMajor;
  header[2] = kLegacyVersionMinor;
  header[3] = static_cast<std::uint8_t>(ciphertext_bytes >> 8U);
  header[4] = static_cast<std::uint8_t>(ciphertext_bytes & 0xFFU);
  if (auto started = start_record(std::span<const std::uint8_t, kTls13HeaderBytes>(header, 5));
      !started) {
    return make_error(started.error());
  }
  auto* body = header + kTls13HeaderBytes;
  const auto inner_type = static_cast<std::uint8_t>(type);
  int written = 0;
  bool ok = true;
  if (!content.empty()) {
    ok = EVP_EncryptUpdate(context_.get(), body, &written,
                           reinterpret_cast<const std::uint8_t*>(content.data()),
                           static_cast<int>(content.size())) == 1;
  }
  // TLSInnerPlaintext: the content, then its real type; no padding.
  ok =
      ok && EVP_EncryptUpdate(context_.get(), body + content.size(), &written, &inner_type, 1) == 1;
  std::uint8_t* tag = body + content.size() + 1;
  ok = ok && EVP_EncryptFinal_ex(context_.get(), tag, &written) == 1 &&
       EVP_CIPHER_CTX_ctrl(context_.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(kTls13TagBytes),
                           tag) == 1;
  if (!ok) return make_error(openssl_error());
  return record_bytes;
}

Result<std::size_t> Tls13RecordCipher::open_parts(std::span<const char> record,
                                                  std::span<char> head, std::span<char> tail) {
  if (direction_ != Direction::Open || record.size() < kTls13HeaderBytes + kTls13TagBytes + 1 ||
      record.size() > kTls13MaxRecordBytes) {
    return make_error(direction_ != Direction::Open ? make_error_code(protocol::Errc::BadArgument)
                                                    : make_error_code(TlsErrc::Fatal));
  }
  const auto* header = reinterpret_cast<const std::uint8_t*>(record.data());
  const std::size_t length = (std::size_t{header[3]} << 8U) | header[4];
  if (header[0] != static_cast<std::uint8_t>(ContentType::ApplicationData) ||
      header[1] != kLegacyVersionMajor || length + kTls13HeaderBytes != record.size()) {
    return make_error(TlsErrc::Fatal);
  }
  const std::size_t inner_bytes = length - kTls13TagBytes;
  const std::size_t head_bytes = std::min(head.size(), inner_bytes);
  if (tail.size() < inner_bytes - head_bytes) return make_error(protocol::Errc::BadArgument);
  if (auto started = start_record(std::span<const std::uint8_t, kTls13HeaderBytes>(header, 5));
      !started) {
    return make_error(started.error());
  }
  const auto* body = header + kTls13HeaderBytes;
  auto* tag = const_cast<std::uint8_t*>(body + inner_bytes);  // OpenSSL only reads it
  int written = 0;
  bool ok = EVP_DecryptUpdate(context_.get(), reinterpret_cast<std::uint8_t*>(head.data()),
                              &written, body, static_cast<int>(head_bytes)) == 1;
  if (ok && inner_bytes > head_bytes) {
    ok = EVP_DecryptUpdate(context_.get(), reinterpret_cast<std::uint8_t*>(tail.data()), &written,
                           body + head_bytes, static_cast<int>(inner_bytes - head_bytes)) == 1;
  }
  if (!ok || EVP_CIPHER_CTX_ctrl(context_.get(), EVP_CTRL_AEAD_SET_TAG,
                                 static_cast<int>(kTls13TagBytes), tag) != 1) {
    return make_error(openssl_error());
  }
  std::uint8_t unused[16];
  if (EVP_DecryptFinal_ex(context_.get(), unused, &written) != 1) {
    ERR_clear_error();  // a forged or damaged record, not an OpenSSL fault
    return make_error(TlsErrc::Fatal);
  }
  return inner_bytes;
}

Result<OpenedRecord> Tls13RecordCipher::open(std::span<const char> record, std::span<char> out) {
  auto inner_bytes = open_parts(record, out, {});
  if (!inner_bytes) return make_error(inner_bytes.error());
  // The real type is the last non-zero byte; zeros behind it are padding (RFC 8446 §5.4).
  const auto* plain = reinterpret_cast<const std::uint8_t*>(out.data());
  std::size_t end = *inner_bytes;
  while (end > 0 && plain[end - 1] == 0) --end;
  if (end == 0) return make_error(TlsErrc::Fatal);
  return OpenedRecord{static_cast<ContentType>(plain[end - 1]), end - 1};
}

Result<std::uint8_t> Tls13RecordCipher::open_exact(std::span<const char> record,
                                                   std::span<char> content) {
  if (record.size() != tls13_record_bytes(content.size())) {
    return make_error(protocol::Errc::BadArgument);
  }
  char type = 0;
  auto inner_bytes = open_parts(record, content, {&type, 1});
  if (!inner_bytes) return make_error(inner_bytes.error());
  return static_cast<std::uint8_t>(type);
}

}  // namespace gridftp::security
