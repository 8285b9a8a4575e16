#include "security/tls13_secret_capture.hpp"

#include <string_view>

#include <openssl/crypto.h>

namespace gridftp::security {
namespace {

void wipe(Tls13TrafficSecrets* secrets) {
  if (secrets == nullptr) return;
  if (!secrets->client.empty()) OPENSSL_cleanse(secrets->client.data(), secrets->client.size());
  if (!secrets->server.empty()) OPENSSL_cleanse(secrets->server.data(), secrets->server.size());
  delete secrets;
}

void free_secrets(void* /*parent*/, void* pointer, CRYPTO_EX_DATA* /*data*/, int /*index*/,
                  long /*argl*/, void* /*argp*/) {
  wipe(static_cast<Tls13TrafficSecrets*>(pointer));
}

int secrets_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, free_secrets);
  return index;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "<LABEL> <client random hex> <secret hex>" (NSS key log format).
void keep_secret(const SSL* ssl, const char* line) {
  const std::string_view text(line);
  std::vector<std::uint8_t> Tls13TrafficSecrets::*slot = nullptr;
  if (text.starts_with("CLIENT_TRAFFIC_SECRET_0 ")) {
    slot = &Tls13TrafficSecrets::client;
  } else if (text.starts_with("SERVER_TRAFFIC_SECRET_0 ")) {
    slot = &Tls13TrafficSecrets::server;
  } else {
    return;  // handshake and exporter secrets are not ours to keep
  }
  const auto last_space = text.rfind(' ');
  const auto hex = text.substr(last_space + 1);
  if (hex.empty() || hex.size() % 2 != 0) return;
  std::vector<std::uint8_t> secret(hex.size() / 2);
  for (std::size_t i = 0; i < secret.size(); ++i) {
    const int high = hex_value(hex[2 * i]);
    const int low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      OPENSSL_cleanse(secret.data(), secret.size());
      return;
    }
    secret[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  auto* mutable_ssl = const_cast<SSL*>(ssl);  // the callback is handed a const SSL*
  auto* secrets = static_cast<Tls13TrafficSecrets*>(SSL_get_ex_data(mutable_ssl, secrets_index()));
  if (secrets == nullptr) {
    secrets = new Tls13TrafficSecrets();
    if (SSL_set_ex_data(mutable_ssl, secrets_index(), secrets) != 1) {
      OPENSSL_cleanse(secret.data(), secret.size());
      delete secrets;
      return;
    }
  }
  auto& kept = secrets->*slot;
  if (!kept.empty()) OPENSSL_cleanse(kept.data(), kept.size());
  kept = std::move(secret);
}

}  // namespace

void capture_tls13_traffic_secrets(SSL_CTX* context) {
  (void)secrets_index();  // made once, before any connection needs it
  SSL_CTX_set_keylog_callback(context, keep_secret);
}

const Tls13TrafficSecrets* captured_tls13_traffic_secrets(const SSL* ssl) {
  return static_cast<const Tls13TrafficSecrets*>(SSL_get_ex_data(ssl, secrets_index()));
}

void release_tls13_traffic_secrets(SSL* ssl) {
  wipe(static_cast<Tls13TrafficSecrets*>(SSL_get_ex_data(ssl, secrets_index())));
  SSL_set_ex_data(ssl, secrets_index(), nullptr);
}

}  // namespace gridftp::security
