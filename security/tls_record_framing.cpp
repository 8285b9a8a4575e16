#include "security/tls_record_framing.hpp"

#include "protocol/core/errors.hpp"

namespace gridftp::security {
namespace {

// change_cipher_spec(20), alert(21), handshake(22), application_data(23), heartbeat(24).
constexpr unsigned kFirstContentType = 20;
constexpr unsigned kLastContentType = 24;
constexpr unsigned kMajorVersion = 3;

unsigned byte_at(std::string_view bytes, std::size_t index) {
  return static_cast<unsigned char>(bytes[index]);
}

}  // namespace

Result<std::optional<std::size_t>> first_tls_record_length(std::string_view bytes) {
  if (bytes.empty()) {
    return std::optional<std::size_t>{};
  }
  const auto type = byte_at(bytes, 0);
  if (type < kFirstContentType || type > kLastContentType ||
      (bytes.size() > 1 && byte_at(bytes, 1) != kMajorVersion)) {
    return make_error(make_error_code(protocol::Errc::BadReply));
  }
  if (bytes.size() < kTlsRecordHeaderBytes) {
    return std::optional<std::size_t>{};
  }
  const std::size_t payload = (byte_at(bytes, 3) << 8U) | byte_at(bytes, 4);
  if (payload > kMaxTlsRecordPayloadBytes) {
    return make_error(make_error_code(protocol::Errc::BadReply));
  }
  const std::size_t total = kTlsRecordHeaderBytes + payload;
  if (bytes.size() < total) {
    return std::optional<std::size_t>{};
  }
  return std::optional<std::size_t>{total};
}

}  // namespace gridftp::security
