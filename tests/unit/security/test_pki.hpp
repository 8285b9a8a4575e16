// A throwaway PKI for tests, made in memory with the OpenSSL API: a trusted CA, host and user
// credentials, RFC 3820 / draft / legacy proxies, an untrusted CA and a CRL. Generated once per
// test binary (RSA 2048 keys take a while); written to disk only when asked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "security/credential.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security::testing {

inline constexpr std::string_view kCaDn = "/O=Grid/OU=Test/CN=Test CA";
inline constexpr std::string_view kHostDn = "/O=Grid/OU=Test/CN=localhost";
inline constexpr std::string_view kUserDn = "/O=Grid/OU=Test/CN=Test User";
inline constexpr std::string_view kRevokedUserDn = "/O=Grid/OU=Test/CN=Revoked User";
inline constexpr std::string_view kUntrustedCaDn = "/O=Elsewhere/CN=Untrusted CA";
inline constexpr std::uint32_t kUserProxySerial = 1234567890;  // also the proxy's last CN

// What a proxy made by make_proxy() looks like. Defaults: an RFC 3820 inheritAll proxy named
// issuer + CN=<serial>, valid from 5 minutes ago for 12 hours.
struct ProxySpec {
  enum class Kind { Rfc3820, Draft, Legacy, NotProxy /* no proxy marker at all */ };
  Kind kind = Kind::Rfc3820;
  std::uint32_t serial = 42;
  std::string policy_oid = "1.3.6.1.5.5.7.21.1";  // RFC 3820 / draft only
  long path_length = -1;                          // RFC 3820 only; -1 = none
  bool limited_legacy = false;                    // Legacy: CN=limited proxy, else CN=proxy
  std::optional<std::string> common_name{};       // overrides the last CN (to break the rules)
  std::optional<std::string> subject{};           // overrides the whole subject, a slash DN
  long not_before_seconds = -5 * 60;              // relative to now
  long not_after_seconds = 12 * 3600;
};

// Paths written by TestPki::write_files(); keys and proxies are mode 0600, the rest 0644.
struct TestPkiFiles {
  std::filesystem::path cert_dir;    // <hash>.0 (trusted CA), <hash>.signing_policy, <hash>.r0
  std::filesystem::path host_cert;   // host certificate + CA
  std::filesystem::path host_key;    // PKCS#8
  std::filesystem::path user_cert;   // user certificate + CA
  std::filesystem::path user_key;    // PKCS#8
  std::filesystem::path user_proxy;  // grid-proxy-init order: proxy, key (PKCS#1), user, CA
};

class TestPki {
 public:
  TestPki();  // slow: use test_pki()

  X509* ca_cert() const { return ca_.cert.get(); }
  X509* untrusted_ca_cert() const { return untrusted_ca_.cert.get(); }
  X509_CRL* crl() const { return crl_.get(); }  // from the CA, revoking revoked_user()
  // Trusts ca_cert() only; X509_V_FLAG_ALLOW_PROXY_CERTS and verify_callback_allowing_proxies,
  // no CRLs (write_files(dir, true) + load_trust_store for those).
  X509_STORE* trust_store() const { return store_.get(); }

  // Fresh owners (shared references) of the fixture's credentials; chains run up to the CA.
  Credential ca() const;
  Credential host() const;                // CN=localhost, SAN DNS:localhost; chain [CA]
  Credential user() const;                // kUserDn; chain [CA]
  Credential user_proxy() const;          // RFC 3820 inheritAll of user(); chain [user, CA]
  Credential limited_user_proxy() const;  // RFC 3820 Globus limited
  Credential expired_user_proxy() const;  // expired a day ago
  Credential legacy_user_proxy() const;   // kUserDn/CN=proxy, no extension
  Credential draft_user_proxy() const;    // critical 1.3.6.1.4.1.3536.1.222 inheritAll
  Credential untrusted_user() const;      // kUserDn again, from the untrusted CA; chain [that CA]
  Credential revoked_user() const;        // kRevokedUserDn, listed in crl(); chain [CA]

  // A new proxy of `issuer` (its chain becomes issuer cert + issuer chain), keyed with the
  // fixture's spare key so no test pays for key generation.
  Credential make_proxy(const Credential& issuer, const ProxySpec& spec) const;
  EVP_PKEY* spare_key() const { return spare_key_.get(); }

  TestPkiFiles write_files(const std::filesystem::path& dir, bool with_crl = false) const;

 private:
  EvpPkeyPtr spare_key_;
  Credential ca_, host_, user_, user_proxy_, limited_user_proxy_, expired_user_proxy_,
      legacy_user_proxy_, draft_user_proxy_, untrusted_ca_, untrusted_user_, revoked_user_;
  X509CrlPtr crl_;
  X509StorePtr store_;
};

const TestPki& test_pki();

// PEM text of a certificate, a CRL, or an unencrypted key (PKCS#8, or PKCS#1 "RSA PRIVATE KEY"
// when `traditional`), and a file writer with a mode; all throw std::runtime_error on failure.
std::string pem_of(X509* certificate);
std::string pem_of(X509_CRL* crl);
std::string pem_of(EVP_PKEY* key, bool traditional = false);
void write_file(const std::filesystem::path& path, std::string_view text,
                std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                              std::filesystem::perms::owner_write);

}  // namespace gridftp::security::testing
