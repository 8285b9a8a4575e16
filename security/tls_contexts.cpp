#include "security/tls_contexts.hpp"

#include <filesystem>
#include <system_error>

#include <openssl/rand.h>

#include "security/openssl_error.hpp"
#include "security/tls13_secret_capture.hpp"

namespace gridftp::security {
namespace {

// gsi.conf's CIPHERS=HIGH for the control channel and PROT P; TLS 1.3 suites are all AEAD.
constexpr const char* kStrongCiphers = "HIGH:!aNULL:!eNULL";
// Globus's list for PROT S and PROT C with DCAU: NULL (integrity-only) suites first.
constexpr const char* kIntegrityCiphers = "eNULL:ALL:!COMPLEMENTOFDEFAULT";
constexpr const char* kDataSuites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
// Proxy chains are longer than ordinary ones: CA, user, proxy, delegated proxy, ...
constexpr int kVerifyDepth = 100;

Result<SslCtxPtr> base_context(TlsRole role) {
  SslCtxPtr context(
      SSL_CTX_new(role == TlsRole::Server ? TLS_server_method() : TLS_client_method()));
  if (!context) return make_error(openssl_error());
  SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
  // No tickets and no renegotiation keep GSI token exchanges in lockstep (docs/WIRE.md §5.1).
  SSL_CTX_set_options(context.get(),
                      SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_num_tickets(context.get(), 0);
  SSL_CTX_set_session_cache_mode(context.get(), SSL_SESS_CACHE_OFF);
  return context;
}

Result<void> use_trust(SSL_CTX* context, X509_STORE* trust, TlsRole role) {
  if (trust != nullptr) SSL_CTX_set1_cert_store(context, trust);  // takes its own reference
  X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(context), X509_V_FLAG_ALLOW_PROXY_CERTS);
  SSL_CTX_set_verify_depth(context, kVerifyDepth);
  const int mode =
      role == TlsRole::Server ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_PEER;
  // No callback here: the trust store's own (verify_callback_allowing_proxies) stays in force.
  SSL_CTX_set_verify(context, mode, nullptr);
  return {};
}

Result<void> set_ciphers(SSL_CTX* context, const char* list) {
  if (SSL_CTX_set_cipher_list(context, list) != 1) return make_error(openssl_error());
  return {};
}

}  // namespace

Result<SslCtxPtr> make_gsi_control_context(const Credential& own, X509_STORE* trust, TlsRole role) {
  auto context = base_context(role);
  if (!context) return context;
  if (auto ok = use_in_ssl_ctx(own, context->get()); !ok) return make_error(ok.error());
  if (auto ok = use_trust(context->get(), trust, role); !ok) return make_error(ok.error());
  if (auto ok = set_ciphers(context->get(), kStrongCiphers); !ok) return make_error(ok.error());
  return context;
}

Result<SslCtxPtr> make_gsi_data_context(const Credential& own, X509_STORE* trust, TlsRole role,
                                        DataProtection protection, bool integrity_only) {
  auto context = base_context(role);
  if (!context) return context;
  if (auto ok = use_in_ssl_ctx(own, context->get()); !ok) return make_error(ok.error());
  if (auto ok = use_trust(context->get(), trust, role); !ok) return make_error(ok.error());
  // Bulk data: AES-128-GCM first (as strong as anyone needs, and ~15% cheaper per byte than the
  // AES-256 that OpenSSL's default order would pick); the server's order wins when we accept.
  if (SSL_CTX_set_ciphersuites(context->get(), kDataSuites) != 1)
    return make_error(openssl_error());
  // TLS 1.3 data streams move to our own record layer after the handshake (TlsEngine::
  // take_over_records), which needs the traffic secrets.
  capture_tls13_traffic_secrets(context->get());
  if (protection == DataProtection::Private) {
    if (auto ok = set_ciphers(context->get(), kStrongCiphers); !ok) return make_error(ok.error());
    return context;
  }
  // NULL suites exist only below security level 1.
  SSL_CTX_set_security_level(context->get(), 0);
  if (auto ok = set_ciphers(context->get(), kIntegrityCiphers); !ok) return make_error(ok.error());
  if (protection == DataProtection::Safe && integrity_only) {
    SSL_CTX_set_max_proto_version(context->get(), TLS1_2_VERSION);
  }
  return context;
}

Result<SslCtxPtr> make_ftps_server_context(const Credential& own) {
  auto context = base_context(TlsRole::Server);
  if (!context) return context;
  // FTPS clients (curl, lftp) resume the control session on data connections; allow it.
  SSL_CTX_clear_options(context->get(), SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(context->get(), 1);
  SSL_CTX_set_session_cache_mode(context->get(), SSL_SESS_CACHE_SERVER);
  static const unsigned char kSessionContext[] = "gridftpd-ftps";
  SSL_CTX_set_session_id_context(context->get(), kSessionContext, sizeof kSessionContext - 1);
  if (auto ok = use_in_ssl_ctx(own, context->get()); !ok) return make_error(ok.error());
  if (auto ok = set_ciphers(context->get(), kStrongCiphers); !ok) return make_error(ok.error());
  SSL_CTX_set_verify(context->get(), SSL_VERIFY_NONE, nullptr);
  return context;
}

Result<SslCtxPtr> make_ftps_client_context(const FtpsTrust& trust) {
  auto context = base_context(TlsRole::Client);
  if (!context) return context;
  // TLS 1.2 servers may resume by ticket as well as by session id.
  SSL_CTX_clear_options(context->get(), SSL_OP_NO_TICKET);
  if (auto ok = set_ciphers(context->get(), kStrongCiphers); !ok) return make_error(ok.error());
  if (!trust.verify) {
    SSL_CTX_set_verify(context->get(), SSL_VERIFY_NONE, nullptr);
    return context;
  }
  if (trust.ca_path.empty()) {
    if (SSL_CTX_set_default_verify_paths(context->get()) != 1) return make_error(openssl_error());
  } else {
    std::error_code ec;
    const bool directory = std::filesystem::is_directory(trust.ca_path, ec);
    const char* file = directory ? nullptr : trust.ca_path.c_str();
    const char* path = directory ? trust.ca_path.c_str() : nullptr;
    if (SSL_CTX_load_verify_locations(context->get(), file, path) != 1) {
      return make_error(openssl_error());
    }
  }
  SSL_CTX_set_verify(context->get(), SSL_VERIFY_PEER, nullptr);
  return context;
}

namespace {

Result<SslCtxPtr> build_unauthenticated_context(TlsRole role) {
  auto context = base_context(role);
  if (!context) return context;
  SSL_CTX_set_min_proto_version(context->get(), TLS1_3_VERSION);
  SSL_CTX_set_verify(context->get(), SSL_VERIFY_NONE, nullptr);
  if (SSL_CTX_set_ciphersuites(context->get(), kDataSuites) != 1)
    return make_error(openssl_error());
  if (role == TlsRole::Server) {
    auto own = make_self_signed("gridftpd unauthenticated UDPX", 1);
    if (!own) return make_error(own.error());
    if (auto ok = use_in_ssl_ctx(*own, context->get()); !ok) return make_error(ok.error());
  }
  return context;
}

}  // namespace

Result<SslCtxPtr> make_unauthenticated_context(TlsRole role) {
  // Each role's context is made on first use, so a client never pays for the server's key.
  const auto shared = [](const Result<SslCtxPtr>& made) -> Result<SslCtxPtr> {
    if (!made) return make_error(made.error());
    return share_context(made->get());
  };
  if (role == TlsRole::Server) {
    static const Result<SslCtxPtr> server = build_unauthenticated_context(TlsRole::Server);
    return shared(server);
  }
  static const Result<SslCtxPtr> client = build_unauthenticated_context(TlsRole::Client);
  return shared(client);
}

SslCtxPtr share_context(SSL_CTX* context) {
  SSL_CTX_up_ref(context);
  return SslCtxPtr(context);
}

Result<Credential> make_self_signed(const std::string& common_name, int days) {
  EvpPkeyPtr key(EVP_RSA_gen(2048));
  if (!key) return make_error(openssl_error());
  X509Ptr cert(X509_new());
  if (!cert) return make_error(openssl_error());
  X509_set_version(cert.get(), 2);
  unsigned char serial_bytes[8];
  RAND_bytes(serial_bytes, sizeof serial_bytes);
  serial_bytes[0] &= 0x7f;
  BignumPtr serial(BN_bin2bn(serial_bytes, sizeof serial_bytes, nullptr));
  if (!serial || BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return make_error(openssl_error());
  }
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -300);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 86400);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert.get(), name);
  X509_set_pubkey(cert.get(), key.get());
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return make_error(openssl_error());
  X509StackPtr chain(sk_X509_new_null());
  if (!chain) return make_error(openssl_error());
  return Credential{std::move(key), std::move(cert), std::move(chain)};
}

}  // namespace gridftp::security
