#include "security/x509_identity.hpp"

#include <catch2/catch.hpp>

#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

using testing::kUserDn;
using testing::ProxySpec;
using testing::test_pki;

TEST_CASE("slash_dn prints X509_NAME_oneline's form", "[security][identity]") {
  CHECK(slash_dn(X509_get_subject_name(test_pki().user().cert.get())) == kUserDn);
  CHECK(slash_dn(nullptr).empty());
  const X509NamePtr name(X509_NAME_new());
  REQUIRE(X509_NAME_add_entry_by_txt(name.get(), "CN", MBSTRING_UTF8,
                                     reinterpret_cast<const unsigned char*>("J\xc3\xb6rg"), -1, -1,
                                     0) == 1);
  REQUIRE(X509_NAME_add_entry_by_txt(name.get(), "emailAddress", MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>("a@b.c"), -1, -1,
                                     0) == 1);
  CHECK(slash_dn(name.get()) == "/CN=J\\xC3\\xB6rg/emailAddress=a@b.c");
}

TEST_CASE("identity_of skips impersonation and limited proxies", "[security][identity]") {
  const auto& pki = test_pki();
  for (const Credential& credential :
       {pki.user(), pki.user_proxy(), pki.limited_user_proxy(), pki.legacy_user_proxy(),
        pki.draft_user_proxy(), pki.expired_user_proxy(),
        pki.make_proxy(pki.make_proxy(pki.user_proxy(), {}), {})}) {
    CHECK(identity_of(credential.cert.get(), credential.chain.get()) == kUserDn);
  }
  CHECK(identity_of(pki.host().cert.get(), nullptr) == testing::kHostDn);
}

TEST_CASE("identity_of stops at independent proxies and at the end of the chain",
          "[security][identity]") {
  const auto& pki = test_pki();
  const auto independent =
      pki.make_proxy(pki.user(), {.serial = 77, .policy_oid = "1.3.6.1.5.5.7.21.2"});
  CHECK(identity_of(independent.cert.get(), independent.chain.get()) ==
        std::string(kUserDn) + "/CN=77");
  CHECK(identity_of(pki.user_proxy().cert.get(), nullptr).empty());
  CHECK(identity_of(nullptr, nullptr).empty());
}

TEST_CASE("same_identity follows Globus's DN comparison", "[security][identity]") {
  struct Row {
    std::string_view a;
    std::string_view b;
    bool same;
  };
  const Row rows[] = {
      {"/O=Grid/OU=Test/CN=Test User", "/O=Grid/OU=Test/CN=Test User", true},
      {"/O=Grid/OU=Test/CN=Test User", "/o=grid/ou=test/cn=test user", true},
      {"/DC=org/UID=alice/CN=Alice", "/DC=org/USERID=alice/CN=Alice", true},
      {"/DC=org/uid=alice/CN=Alice", "/DC=org/UserId=alice/CN=Alice", true},
      {"/CN=A/E=a@b.c", "/CN=A/emailAddress=a@b.c", true},
      {"/CN=A/Email=a@b.c", "/CN=A/E=a@b.c", true},
      {"/CN=J\\xC3\\xB6rg", "/CN=J\\xc3\\xb6rg", true},
      {"/O=Grid/OU=Test/CN=Test User", "/O=Grid/OU=Test/CN=Test User2", false},
      {"/O=Grid/OU=Test/CN=Test User", "/O=Grid/OU=Test/CN=Test User/CN=123", false},
      {"/CN=UID=x", "/CN=USERID=x", false},  // only right after a '/'
      {"/CN=A/E=a@b.c", "/CN=A/EE=a@b.c", false},
      {"", "", true},
      {"/CN=A", "", false},
  };
  for (const Row& row : rows) {
    INFO(row.a << " vs " << row.b);
    CHECK(same_identity(row.a, row.b) == row.same);
    CHECK(same_identity(row.b, row.a) == row.same);
  }
}

}  // namespace
}  // namespace gridftp::security
