#include "security/proxy_certificate.hpp"

#include <catch2/catch.hpp>

#include "security/security_errors.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

using testing::ProxySpec;
using testing::test_pki;

Result<void> check(const Credential& credential, std::string& why) {
  return check_proxy_chain_rules(credential.cert.get(), credential.chain.get(), why);
}

TEST_CASE("proxy_type recognises the three proxy kinds and their policies", "[security][proxy]") {
  const auto& pki = test_pki();
  struct Row {
    Credential credential;
    ProxyKind kind;
    ProxyPolicy policy;
  };
  const Row rows[] = {
      {pki.user_proxy(), ProxyKind::Rfc3820, ProxyPolicy::Impersonation},
      {pki.limited_user_proxy(), ProxyKind::Rfc3820, ProxyPolicy::Limited},
      {pki.draft_user_proxy(), ProxyKind::Draft, ProxyPolicy::Impersonation},
      {pki.legacy_user_proxy(), ProxyKind::Legacy, ProxyPolicy::Impersonation},
      {pki.make_proxy(pki.user(), {.kind = ProxySpec::Kind::Legacy, .limited_legacy = true}),
       ProxyKind::Legacy, ProxyPolicy::Limited},
      {pki.make_proxy(pki.user(), {.policy_oid = "1.3.6.1.5.5.7.21.2"}), ProxyKind::Rfc3820,
       ProxyPolicy::Independent},
      {pki.make_proxy(pki.user(), {.policy_oid = "1.2.3.4"}), ProxyKind::Rfc3820,
       ProxyPolicy::Restricted},
      {pki.make_proxy(pki.user(),
                      {.kind = ProxySpec::Kind::Draft, .policy_oid = "1.3.6.1.4.1.3536.1.1.1.9"}),
       ProxyKind::Draft, ProxyPolicy::Limited},
  };
  for (const Row& row : rows) {
    const ProxyType type = proxy_type(row.credential.cert.get());
    CHECK(type.kind == row.kind);
    CHECK(type.policy == row.policy);
    CHECK(is_proxy_certificate(row.credential.cert.get()));
    CHECK(is_limited_proxy(row.credential.cert.get()) == (row.policy == ProxyPolicy::Limited));
  }
}

TEST_CASE("end-entity and CA certificates are not proxies", "[security][proxy]") {
  const auto& pki = test_pki();
  for (X509* certificate : {pki.ca_cert(), pki.host().cert.get(), pki.user().cert.get(),
                            pki.untrusted_ca_cert(), static_cast<X509*>(nullptr)}) {
    CHECK(proxy_type(certificate).kind == ProxyKind::NotProxy);
    CHECK_FALSE(is_proxy_certificate(certificate));
    CHECK_FALSE(is_limited_proxy(certificate));
  }
}

TEST_CASE("check_proxy_chain_rules accepts well-formed chains", "[security][proxy]") {
  const auto& pki = test_pki();
  const auto second = pki.make_proxy(pki.user_proxy(), {});
  const auto limited_below_limited =
      pki.make_proxy(pki.limited_user_proxy(), {.policy_oid = "1.3.6.1.4.1.3536.1.1.1.9"});
  const auto within_path_length =
      pki.make_proxy(pki.make_proxy(pki.user(), {.path_length = 1}), {});
  for (const Credential* credential : {&second, &limited_below_limited, &within_path_length}) {
    std::string why;
    CHECK(check(*credential, why).has_value());
    CHECK(why.empty());
  }
  for (const Credential& credential : {pki.user(), pki.host(), pki.user_proxy(),
                                       pki.legacy_user_proxy(), pki.draft_user_proxy()}) {
    CHECK(check_proxy_chain_rules(credential.cert.get(), credential.chain.get()).has_value());
  }
}

TEST_CASE("check_proxy_chain_rules rejects broken proxy chains", "[security][proxy]") {
  const auto& pki = test_pki();
  std::string why;
  Result<void> result;
  SECTION("subject is not issuer plus one CN") {
    result =
        check(pki.make_proxy(pki.user(), {.subject = "/O=Grid/OU=Test/CN=Someone Else/CN=5"}), why);
  }
  SECTION("subject has two more CNs") {
    result = check(
        pki.make_proxy(pki.user(), {.subject = std::string(testing::kUserDn) + "/CN=1/CN=2"}), why);
  }
  SECTION("next certificate is not the issuer") {
    auto proxy = pki.user_proxy();
    X509_free(sk_X509_shift(proxy.chain.get()));  // drop the user certificate
    result = check(proxy, why);
  }
  SECTION("path length exceeded") {
    result = check(pki.make_proxy(pki.make_proxy(pki.user(), {.path_length = 0}), {}), why);
  }
  SECTION("limited proxy signs a full proxy") {
    result = check(pki.make_proxy(pki.limited_user_proxy(), {}), why);
  }
  SECTION("CA signs a proxy directly") { result = check(pki.make_proxy(pki.ca(), {}), why); }
  SECTION("no end-entity certificate") {
    const auto proxy = pki.user_proxy();
    result = check_proxy_chain_rules(proxy.cert.get(), nullptr, why);
  }
  SECTION("proxy signs a non-proxy") {
    // A certificate under the proxy that claims to be an ordinary end entity.
    const auto child = pki.make_proxy(pki.user_proxy(), {.kind = ProxySpec::Kind::NotProxy});
    result = check(child, why);
  }
  CHECK(result.error() == Errc::ProxyViolation);
  CHECK_FALSE(why.empty());
}

TEST_CASE("is_proxy_subject wants exactly one more CN", "[security][proxy]") {
  const auto& pki = test_pki();
  X509_NAME* user = X509_get_subject_name(pki.user().cert.get());
  X509_NAME* proxy = X509_get_subject_name(pki.user_proxy().cert.get());
  CHECK(is_proxy_subject(proxy, user));
  CHECK_FALSE(is_proxy_subject(user, user));
  CHECK_FALSE(is_proxy_subject(proxy, X509_get_subject_name(pki.ca_cert())));
  CHECK_FALSE(is_proxy_subject(user, X509_get_subject_name(pki.ca_cert())));
}

}  // namespace
}  // namespace gridftp::security
