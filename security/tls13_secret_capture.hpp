// The TLS 1.3 application traffic secrets of a handshake, captured so that the record layer
// (security/tls13_record_layer) can take the data stream over from OpenSSL. OpenSSL gives
// these secrets out only through its key-log callback (the lines an SSLKEYLOGFILE would hold,
// RFC 8446 §7.1's client/server_application_traffic_secret_0); the callback keeps them with
// the connection, never in a file or a log.
#pragma once

#include <cstdint>
#include <vector>

#include <openssl/ssl.h>

namespace gridftp::security {

struct Tls13TrafficSecrets {
  std::vector<std::uint8_t> client;  // client_application_traffic_secret_0
  std::vector<std::uint8_t> server;  // server_application_traffic_secret_0
  bool complete() const { return !client.empty() && !server.empty(); }
};

// Every connection made from `context` keeps its secrets (until released below).
void capture_tls13_traffic_secrets(SSL_CTX* context);

// The connection's captured secrets; null when none were captured (another context, TLS 1.2).
const Tls13TrafficSecrets* captured_tls13_traffic_secrets(const SSL* ssl);

// Wipes and drops the connection's captured secrets (the record layer keeps its own copies).
void release_tls13_traffic_secrets(SSL* ssl);

}  // namespace gridftp::security
