#include "security/tls_engine.hpp"

#include <algorithm>
#include <cstring>

#include <openssl/err.h>

#include "protocol/core/errors.hpp"
#include "security/openssl_error.hpp"
#include "security/tls13_secret_capture.hpp"

namespace gridftp::security {
namespace {

class TlsCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.tls"; }
  std::string message(int value) const override {
    switch (static_cast<TlsErrc>(value)) {
      case TlsErrc::HandshakeFailed:
        return "security handshake failed";
      case TlsErrc::PeerClosed:
        return "peer closed the secure channel";
      case TlsErrc::Fatal:
        return "secure channel failed (bad or forged record)";
      case TlsErrc::InputOverflow:
        return "security token too large";
    }
    return "unknown TLS error";
  }
  // A handshake the peer cannot pass is a failed login on the control channel; everything after
  // it is a broken transfer.
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<TlsErrc>(value)) {
      case TlsErrc::HandshakeFailed:
        return Condition::LoginFailed;
      case TlsErrc::InputOverflow:
        return Condition::BadSyntax;
      case TlsErrc::PeerClosed:
      case TlsErrc::Fatal:
        return Condition::TransferFailed;
    }
    return Condition::LocalError;
  }
};

}  // namespace

const std::error_category& tls_category() {
  static const TlsCategory category;
  return category;
}

std::error_code make_error_code(TlsErrc e) { return {static_cast<int>(e), tls_category()}; }

Result<TlsEngine> TlsEngine::create(SSL_CTX* context, Role role, std::size_t ring_bytes) {
  SslPtr ssl(SSL_new(context));
  if (!ssl) return make_error(openssl_error());
  BIO* internal = nullptr;
  BIO* network = nullptr;
  if (BIO_new_bio_pair(&internal, ring_bytes, &network, ring_bytes) != 1)
    return make_error(openssl_error());
  SSL_set_bio(ssl.get(), internal, internal);  // SSL owns `internal` from here on
  // Partial writes let write() report progress when the output ring fills instead of failing.
  SSL_set_mode(ssl.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (role == Role::Client) {
    SSL_set_connect_state(ssl.get());
  } else {
    SSL_set_accept_state(ssl.get());
  }
  return TlsEngine(std::move(ssl), BioPtr(network), ring_bytes);
}

Result<void> TlsEngine::expect_host(const std::string& host) {
  // An IP literal is matched against the certificate's iPAddress entries, a name against its
  // DNS names (and CN); SNI carries names only.
  if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_.get()), host.c_str()) == 1) return {};
  ERR_clear_error();  // not an IP literal
  if (SSL_set1_host(ssl_.get(), host.c_str()) != 1) return make_error(openssl_error());
  SSL_set_tlsext_host_name(ssl_.get(), host.c_str());
  return {};
}

std::error_code TlsEngine::fail(TlsErrc code) {
  std::string reasons;
  (void)openssl_error(reasons);
  const long verify = SSL_get_verify_result(ssl_.get());
  if (verify != X509_V_OK) {
    reasons = std::string("certificate verify failed: ") + X509_verify_cert_error_string(verify) +
              (reasons.empty() ? "" : "; " + reasons);
  }
  last_error_ = reasons.empty() ? make_error_code(code).message() : reasons;
  return make_error_code(code);
}

std::span<char> TlsEngine::input_space() {
  if (records_) return records_->input_space();
  char* space = nullptr;
  const int available = BIO_nwrite0(network_.get(), &space);
  if (available <= 0) return {};
  return {space, static_cast<std::size_t>(available)};
}

void TlsEngine::commit_input(std::size_t bytes) {
  if (records_) return records_->commit_input(bytes);
  char* ignored = nullptr;
  if (bytes > 0) BIO_nwrite(network_.get(), &ignored, static_cast<int>(bytes));
}

Result<void> TlsEngine::feed(std::span<const char> bytes) {
  while (!bytes.empty()) {
    const auto space = input_space();
    if (space.empty()) return make_error(fail(TlsErrc::InputOverflow));
    const auto n = std::min(space.size(), bytes.size());
    std::memcpy(space.data(), bytes.data(), n);
    commit_input(n);
    bytes = bytes.subspan(n);
  }
  return {};
}

std::span<const char> TlsEngine::pending_output() {
  if (records_) return records_->pending_output();
  char* data = nullptr;
  const int available = BIO_nread0(network_.get(), &data);
  if (available <= 0) return {};
  return {data, static_cast<std::size_t>(available)};
}

void TlsEngine::consume_output(std::size_t bytes) {
  if (records_) return records_->consume_output(bytes);
  char* ignored = nullptr;
  if (bytes > 0) BIO_nread(network_.get(), &ignored, static_cast<int>(bytes));
}

bool TlsEngine::has_output() {
  if (records_) return records_->has_output();
  return BIO_ctrl_pending(network_.get()) > 0;
}

std::string TlsEngine::take_output() {
  std::string out;
  for (auto chunk = pending_output(); !chunk.empty(); chunk = pending_output()) {
    out.append(chunk.data(), chunk.size());
    consume_output(chunk.size());
  }
  return out;
}

std::string TlsEngine::take_unprocessed_input() {
  std::string out;
  BIO* internal = SSL_get_rbio(ssl_.get());
  char buffer[4096];
  for (;;) {
    const int got = BIO_read(internal, buffer, sizeof buffer);
    if (got <= 0) break;
    out.append(buffer, static_cast<std::size_t>(got));
  }
  return out;
}

Result<TlsEngine::Progress> TlsEngine::handshake() {
  ERR_clear_error();
  const int rc = SSL_do_handshake(ssl_.get());
  if (rc == 1) return Progress::Done;
  switch (SSL_get_error(ssl_.get(), rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      return Progress::NeedInput;
    default:
      return make_error(fail(TlsErrc::HandshakeFailed));
  }
}

std::error_code TlsEngine::records_failed(const std::error_code& code) {
  if (code != TlsErrc::PeerClosed) {
    last_error_ = records_->last_error().empty() ? code.message() : records_->last_error();
  }
  return code;
}

Result<bool> TlsEngine::take_over_records(RecordWorkers* workers) {
  SSL* ssl = ssl_.get();
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
  const Tls13TrafficSecrets* secrets = captured_tls13_traffic_secrets(ssl);
  const auto suite =
      cipher != nullptr ? tls13_suite(SSL_CIPHER_get_protocol_id(cipher)) : std::nullopt;
  // Both directions must be at record 0 of application_traffic_secret_0: a server that sent
  // session tickets has used up record numbers we cannot see, and output still in OpenSSL's
  // ring would be out of order with ours.
  const bool equivalent =
      records_ == nullptr && handshake_done() && SSL_version(ssl) == TLS1_3_VERSION && suite &&
      secrets != nullptr && secrets->complete() &&
      (SSL_is_server(ssl) == 0 || SSL_get_num_tickets(ssl) == 0) && !has_output();
  if (!equivalent) return false;
  const bool client = SSL_is_server(ssl) == 0;
  auto layer = Tls13RecordLayer::create(*suite, client ? secrets->client : secrets->server,
                                        client ? secrets->server : secrets->client, ring_bytes_);
  release_tls13_traffic_secrets(ssl);
  if (!layer) return make_error(layer.error());
  // OpenSSL reads whole records only (no read-ahead), so what it has not read starts at the
  // peer's first application record.
  const std::string unread = take_unprocessed_input();
  records_ = std::make_unique<Tls13RecordLayer>(std::move(*layer));
  records_->use_workers(workers);
  if (auto fed = feed(unread); !fed) return make_error(fed.error());
  return true;
}

void TlsEngine::issue_no_session_tickets() { SSL_set_num_tickets(ssl_.get(), 0); }

Result<void> TlsEngine::resume(SSL_SESSION* session) {
  // A copy: OpenSSL marks the session of a connection that ends without close_notify as no
  // longer resumable, and one such data connection must not spoil the session for the next.
  SslSessionPtr copy(SSL_SESSION_dup(session));
  if (!copy) return make_error(openssl_error());
  if (SSL_set_session(ssl_.get(), copy.get()) != 1) return make_error(openssl_error());
  return {};
}

SslSessionPtr TlsEngine::resumable_session() const {
  SslSessionPtr session(SSL_get1_session(ssl_.get()));
  if (!session || SSL_SESSION_is_resumable(session.get()) != 1) return nullptr;
  return session;
}

bool TlsEngine::session_reused() const { return SSL_session_reused(ssl_.get()) == 1; }

bool TlsEngine::handshake_done() const { return SSL_is_init_finished(ssl_.get()) == 1; }

Result<std::size_t> TlsEngine::write(std::span<const char> plain) {
  if (plain.empty()) return std::size_t{0};
  if (records_) {
    auto written = records_->write(plain);
    if (!written) return make_error(records_failed(written.error()));
    return written;
  }
  ERR_clear_error();
  std::size_t written = 0;
  const int rc = SSL_write_ex(ssl_.get(), plain.data(), plain.size(), &written);
  if (rc == 1) return written;
  switch (SSL_get_error(ssl_.get(), rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      return std::size_t{0};
    case SSL_ERROR_ZERO_RETURN:
      return make_error(fail(TlsErrc::PeerClosed));
    default:
      return make_error(fail(TlsErrc::Fatal));
  }
}

Result<std::size_t> TlsEngine::read(std::span<char> out) {
  if (out.empty()) return std::size_t{0};
  if (records_) {
    auto got = records_->read(out);
    if (!got) return make_error(records_failed(got.error()));
    return got;
  }
  ERR_clear_error();
  std::size_t got = 0;
  const int rc = SSL_read_ex(ssl_.get(), out.data(), out.size(), &got);
  if (rc == 1) return got;
  switch (SSL_get_error(ssl_.get(), rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      return std::size_t{0};
    case SSL_ERROR_ZERO_RETURN:
      return make_error(fail(TlsErrc::PeerClosed));
    default:
      return make_error(fail(TlsErrc::Fatal));
  }
}

void TlsEngine::shutdown() {
  if (records_) return records_->shutdown();
  ERR_clear_error();
  (void)SSL_shutdown(ssl_.get());
  ERR_clear_error();
}

std::string TlsEngine::protocol_version() const { return SSL_get_version(ssl_.get()); }

std::string TlsEngine::cipher_name() const {
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_.get());
  return cipher != nullptr ? SSL_CIPHER_get_name(cipher) : "none";
}

bool TlsEngine::encrypts() const {
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_.get());
  return cipher != nullptr && SSL_CIPHER_get_cipher_nid(cipher) != NID_undef;
}

Result<void> TlsEngine::export_keying_material(std::string_view label,
                                               std::span<const std::uint8_t> context,
                                               std::span<std::uint8_t> out) const {
  SSL* ssl = ssl_.get();
  const bool tls13 = SSL_version(ssl) >= TLS1_3_VERSION;
  if (SSL_is_init_finished(ssl) != 1 || (!tls13 && SSL_get_extms_support(ssl) != 1)) {
    return make_error(TlsErrc::HandshakeFailed);
  }
  const std::string label_text(label);
  if (SSL_export_keying_material(ssl, out.data(), out.size(), label_text.data(), label_text.size(),
                                 context.data(), context.size(), 1) != 1) {
    return make_error(openssl_error());
  }
  return {};
}

}  // namespace gridftp::security
