#include "security/trust_store.hpp"

#include <catch2/catch.hpp>
#include <stdlib.h>  // setenv

#include "protocol/core/errors.hpp"
#include "security/security_errors.hpp"
#include "tests/unit/security/temp_dir.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

using testing::ProxySpec;
using testing::TempDir;
using testing::test_pki;

Result<void> verify(X509_STORE* store, const Credential& credential, std::string& message) {
  return verify_chain(store, credential.cert.get(), credential.chain.get(), message);
}

X509StorePtr load_store(const TempDir& dir, bool with_crl) {
  const auto files = test_pki().write_files(dir.path(), with_crl);
  std::string message;
  auto store = load_trust_store(files.cert_dir, message);
  INFO(message);
  REQUIRE(store.has_value());
  return std::move(*store);
}

TEST_CASE("a CA directory verifies the fixture's credentials", "[security][trust]") {
  const TempDir dir;
  const X509StorePtr store = load_store(dir, GENERATE(false, true));
  const auto& pki = test_pki();
  for (const Credential& credential :
       {pki.host(), pki.user(), pki.user_proxy(), pki.limited_user_proxy(),
        pki.make_proxy(pki.user_proxy(), {})}) {
    std::string message;
    CHECK(verify(store.get(), credential, message).has_value());
    CHECK(message.empty());
  }
}

TEST_CASE("verify_chain tells untrusted, expired and revoked apart", "[security][trust]") {
  const TempDir dir;
  const X509StorePtr store = load_store(dir, true);
  const auto& pki = test_pki();
  struct Row {
    Credential credential;
    Errc expected;
    std::string_view message_part;
  };
  const Row rows[] = {
      {pki.untrusted_user(), Errc::CertificateUntrusted, "Untrusted CA"},
      {pki.make_proxy(pki.untrusted_user(), {}), Errc::CertificateUntrusted, "Untrusted CA"},
      {pki.expired_user_proxy(), Errc::CertificateExpired, "expired"},
      {pki.make_proxy(pki.user(), {.not_before_seconds = 3600}), Errc::CertificateNotYetValid,
       "not yet valid"},
      {pki.revoked_user(), Errc::CertificateRevoked, "revoked"},
      {pki.make_proxy(pki.revoked_user(), {}), Errc::CertificateRevoked, "Revoked User"},
  };
  for (const Row& row : rows) {
    std::string message;
    CHECK(verify(store.get(), row.credential, message).error() == row.expected);
    INFO(message);
    CHECK(message.find(row.message_part) != std::string::npos);
  }
}

TEST_CASE("a self-signed certificate or a chain without its CA is untrusted", "[security][trust]") {
  const auto& pki = test_pki();
  const TempDir dir;
  const X509StorePtr store = load_store(dir, false);
  CHECK(verify_chain(store.get(), pki.untrusted_ca_cert(), nullptr).error() ==
        Errc::CertificateUntrusted);
  const auto proxy = pki.user_proxy();
  CHECK(verify_chain(store.get(), proxy.cert.get(), nullptr).error() == Errc::CertificateUntrusted);
}

TEST_CASE("legacy and draft proxies verify only through the proxy callback", "[security][trust]") {
  const auto& pki = test_pki();
  const auto proxy = GENERATE(0, 1) == 0 ? pki.legacy_user_proxy() : pki.draft_user_proxy();
  std::string message;
  CHECK(verify(pki.trust_store(), proxy, message).has_value());
  INFO(message);
  // Stock OpenSSL 3, even with proxies allowed, calls the user certificate an invalid CA.
  const X509StorePtr plain(X509_STORE_new());
  REQUIRE(X509_STORE_add_cert(plain.get(), pki.ca_cert()) == 1);
  X509_STORE_set_flags(plain.get(), X509_V_FLAG_ALLOW_PROXY_CERTS);
  CHECK(verify(plain.get(), proxy, message).error() == Errc::CertificateInvalid);
}

TEST_CASE("legacy proxies pass the TLS purpose checks and leave no error behind",
          "[security][trust]") {
  // What an SSL verification does: the same store with a TLS purpose set on the context.
  const auto& pki = test_pki();
  const auto proxy = GENERATE(0, 1) == 0 ? pki.legacy_user_proxy() : pki.draft_user_proxy();
  const int purpose = GENERATE(X509_PURPOSE_SSL_CLIENT, X509_PURPOSE_SSL_SERVER);
  const X509StoreCtxPtr context(X509_STORE_CTX_new());
  REQUIRE(X509_STORE_CTX_init(context.get(), pki.trust_store(), proxy.cert.get(),
                              proxy.chain.get()) == 1);
  REQUIRE(X509_STORE_CTX_set_purpose(context.get(), purpose) == 1);
  CHECK(X509_verify_cert(context.get()) == 1);
  CHECK(X509_STORE_CTX_get_error(context.get()) == X509_V_OK);
}

TEST_CASE("the callback forgives nothing else", "[security][trust]") {
  const auto& pki = test_pki();
  std::string message;
  SECTION("an end-entity certificate signed by the user") {
    const auto forged = pki.make_proxy(pki.user(), {.kind = ProxySpec::Kind::NotProxy});
    CHECK(verify(pki.trust_store(), forged, message).error() == Errc::CertificateInvalid);
  }
  SECTION("a legacy proxy that breaks the name rule") {
    const auto forged = pki.make_proxy(
        pki.user(), {.kind = ProxySpec::Kind::Legacy, .subject = "/O=Grid/CN=Other/CN=proxy"});
    CHECK_FALSE(verify(pki.trust_store(), forged, message).has_value());
  }
  SECTION("a proxy that signed an end-entity certificate") {
    const auto forged = pki.make_proxy(pki.user_proxy(), {.kind = ProxySpec::Kind::NotProxy});
    CHECK(verify(pki.trust_store(), forged, message).error() == Errc::CertificateInvalid);
  }
  SECTION("an RFC 3820 proxy over its path length") {
    const auto deep = pki.make_proxy(pki.make_proxy(pki.user(), {.path_length = 0}), {});
    CHECK(verify(pki.trust_store(), deep, message).error() == Errc::ProxyViolation);
  }
  SECTION("a limited proxy that signed a full proxy") {
    const auto full = pki.make_proxy(pki.limited_user_proxy(), {});
    CHECK(verify(pki.trust_store(), full, message).error() == Errc::ProxyViolation);
  }
  CHECK_FALSE(message.empty());
}

TEST_CASE("load_trust_store reports bad directories and files", "[security][trust]") {
  const TempDir dir;
  std::string message;
  CHECK(load_trust_store(dir.path() / "missing", message).error() == Condition::NotFound);
  CHECK_FALSE(message.empty());
  CHECK(load_trust_store(dir.path(), message).error() == Errc::NoTrustAnchors);
  testing::write_file(dir.path() / "0123abcd.signing_policy", "ignored");
  testing::write_file(dir.path() / "README", "ignored");
  CHECK(load_trust_store(dir.path(), message).error() == Errc::NoTrustAnchors);
  testing::write_file(dir.path() / "0123abcd.0",
                      "-----BEGIN CERTIFICATE-----\n!!\n"
                      "-----END CERTIFICATE-----\n");
  CHECK(load_trust_store(dir.path(), message).error() == Errc::MalformedPem);
  CHECK(message.find("0123abcd.0") != std::string::npos);
  testing::write_file(dir.path() / "0123abcd.0", "no certificate here");
  CHECK(load_trust_store(dir.path(), message).error() == Errc::MalformedPem);
}

TEST_CASE("CRL checking turns on only with a CRL", "[security][trust]") {
  const TempDir dir;
  const bool with_crl = GENERATE(false, true);
  const X509StorePtr store = load_store(dir, with_crl);
  const unsigned long flags = X509_VERIFY_PARAM_get_flags(X509_STORE_get0_param(store.get()));
  CHECK((flags & X509_V_FLAG_ALLOW_PROXY_CERTS) != 0);
  CHECK(((flags & X509_V_FLAG_CRL_CHECK) != 0) == with_crl);
  CHECK(((flags & X509_V_FLAG_CRL_CHECK_ALL) != 0) == with_crl);
  std::string message;
  const auto revoked = verify(store.get(), test_pki().revoked_user(), message);
  CHECK(revoked.has_value() == !with_crl);
}

TEST_CASE("a CA without a CRL still verifies when another CA has one", "[security][trust]") {
  const TempDir dir;
  const auto files = test_pki().write_files(dir.path(), true);
  testing::write_file(files.cert_dir / "abcdef01.0",
                      testing::pem_of(test_pki().untrusted_ca_cert()));
  auto store = load_trust_store(files.cert_dir);
  REQUIRE(store.has_value());
  const auto other = test_pki().untrusted_user();
  std::string message;
  CHECK(verify(store->get(), other, message).has_value());
  INFO(message);
}

TEST_CASE("default_cert_dir follows X509_CERT_DIR", "[security][trust]") {
  const char* saved = std::getenv("X509_CERT_DIR");
  const std::string restore = saved != nullptr ? saved : "";
  ::setenv("X509_CERT_DIR", "/somewhere/certs", 1);
  CHECK(default_cert_dir() == "/somewhere/certs");
  ::setenv("X509_CERT_DIR", "", 1);
  CHECK(default_cert_dir() == "/etc/grid-security/certificates");
  ::unsetenv("X509_CERT_DIR");
  CHECK(default_cert_dir() == "/etc/grid-security/certificates");
  if (saved != nullptr) {
    ::setenv("X509_CERT_DIR", restore.c_str(), 1);
  }
}

}  // namespace
}  // namespace gridftp::security
