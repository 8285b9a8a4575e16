// One direction of TLS 1.3 record protection (RFC 8446 §5.2-§5.3, §7.2-§7.3): the key and IV
// of a traffic secret, the per-record nonce, sealing a record straight into the buffer the
// socket sends from and opening one straight into the buffer the caller reads into, and
// KeyUpdate's next secret. Pure: no I/O, one cipher context per key. The TLS 1.3 record layer
// (security/tls13_record_layer) builds on it once OpenSSL has run the handshake
// (docs/ARCHITECTURE.md, "Secure data streams").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

// The TLS 1.3 suites (RFC 8446 §B.4) our data contexts offer.
enum class Tls13Suite { Aes128GcmSha256, Aes256GcmSha384, Chacha20Poly1305Sha256 };
// The suite of an IANA cipher-suite number (SSL_CIPHER_get_protocol_id), or nullopt.
std::optional<Tls13Suite> tls13_suite(std::uint16_t iana_id);

// TLSPlaintext.type / TLSInnerPlaintext.type (RFC 8446 §5.1).
enum class ContentType : std::uint8_t { Alert = 21, Handshake = 22, ApplicationData = 23 };

inline constexpr std::size_t kTls13HeaderBytes = 5;
inline constexpr std::size_t kTls13TagBytes = 16;
inline constexpr std::size_t kTls13MaxPlaintextBytes = 16384;  // 2^14
inline constexpr std::size_t kTls13MaxCiphertextBytes = kTls13MaxPlaintextBytes + 256;
inline constexpr std::size_t kTls13MaxRecordBytes = kTls13HeaderBytes + kTls13MaxCiphertextBytes;

// Bytes on the wire of a record carrying `content_bytes` (no padding).
constexpr std::size_t tls13_record_bytes(std::size_t content_bytes) {
  return kTls13HeaderBytes + content_bytes + 1 + kTls13TagBytes;
}

struct OpenedRecord {
  ContentType type;
  std::size_t
      content_bytes;  // at the start of the caller's `out`; the type byte and padding follow
};

class Tls13RecordCipher {
 public:
  enum class Direction { Seal, Open };

  // Keys for `traffic_secret` (HashLen bytes of the suite's hash), record number 0.
  // Errors: Errc::CryptoFailure for a secret of the wrong length; an OpenSSL error.
  static Result<Tls13RecordCipher> create(Tls13Suite suite,
                                          std::span<const std::uint8_t> traffic_secret,
                                          Direction direction);

  // Writes one record carrying `content` (at most 2^14 bytes) at the start of `out`, which
  // must hold tls13_record_bytes(content.size()); returns the bytes written. `content` and
  // `out` must not overlap. Errors: protocol::Errc::BadArgument for a content or buffer of the
  // wrong size; TlsErrc::Fatal when the record numbers of this key are used up; OpenSSL errors.
  Result<std::size_t> seal(ContentType type, std::span<const char> content, std::span<char> out);

  // Opens one whole record (header included) into `out`, which must hold record.size() - 5 - 16
  // bytes and is either apart from `record` or exactly its body (in place). Errors:
  // TlsErrc::Fatal for a forged or damaged record, a record over 2^14 + 256 bytes of
  // ciphertext, an outer type other than application_data or an inner plaintext of zeros only;
  // protocol::Errc::BadArgument when `out` is too small.
  Result<OpenedRecord> open(std::span<const char> record, std::span<char> out);

  // Opens a record of exactly tls13_record_bytes(content.size()) bytes whose content goes into
  // `content` and returns the byte behind it: the inner type when the record is unpadded, else
  // a byte of padding (0) or of content, which the caller must not take as application data
  // without checking. For opening a run of records on several threads, each straight into its
  // own slice of the caller's buffer. Errors: as open(); BadArgument for a record of another size.
  Result<std::uint8_t> open_exact(std::span<const char> record, std::span<char> content);

  // KeyUpdate: the next traffic secret (RFC 8446 §7.2), its key and IV, record number 0.
  Result<void> update();

  std::uint64_t record_number() const { return sequence_; }

  // For sealing or opening one key's records on several threads (security/record_workers): an
  // independent copy of this key and direction, at the same record number. Errors: OpenSSL's.
  Result<Tls13RecordCipher> copy() const;
  // Moves past `records` record numbers that copies have used. Errors: TlsErrc::Fatal when that
  // would use up this key's record numbers.
  Result<void> skip(std::uint64_t records);
  // Changes with every key (create, update), so that copies of an old key are never used.
  std::uint64_t key_generation() const { return key_generation_; }

  Tls13RecordCipher(Tls13RecordCipher&&) noexcept = default;
  Tls13RecordCipher& operator=(Tls13RecordCipher&&) noexcept = default;
  ~Tls13RecordCipher();

 private:
  Tls13RecordCipher(Tls13Suite suite, Direction direction) : suite_(suite), direction_(direction) {}
  Result<void> rekey(std::span<const std::uint8_t> traffic_secret);
  Result<void> start_record(std::span<const std::uint8_t, kTls13HeaderBytes> header);
  // Checks and opens `record`: the inner plaintext's first bytes into `head`, the rest into
  // `tail`; returns the inner plaintext's size.
  Result<std::size_t> open_parts(std::span<const char> record, std::span<char> head,
                                 std::span<char> tail);

  Tls13Suite suite_;
  Direction direction_;
  std::vector<std::uint8_t> secret_;
  std::array<std::uint8_t, 12> iv_{};
  std::uint64_t sequence_ = 0;
  std::uint64_t key_generation_ = 0;
  EvpCipherCtxPtr context_;
};

}  // namespace gridftp::security
