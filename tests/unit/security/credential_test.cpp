#include "security/credential.hpp"

#include <map>

#include <catch2/catch.hpp>

#include "protocol/core/errors.hpp"
#include "security/security_errors.hpp"
#include "tests/unit/security/temp_dir.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

using std::filesystem::perms;
using testing::kUserDn;
using testing::pem_of;
using testing::TempDir;
using testing::test_pki;
using testing::write_file;

EnvironmentLookup fake_environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    const auto found = values.find(name);
    return found != values.end() ? std::optional<std::string>(found->second) : std::nullopt;
  };
}

TEST_CASE("load_credential loads a host certificate, its chain and key", "[security][credential]") {
  const TempDir dir;
  const auto files = test_pki().write_files(dir.path());
  const auto host = load_credential(files.host_cert, files.host_key);
  REQUIRE(host.has_value());
  CHECK(X509_cmp(host->cert.get(), test_pki().host().cert.get()) == 0);
  REQUIRE(sk_X509_num(host->chain.get()) == 1);
  CHECK(X509_cmp(sk_X509_value(host->chain.get(), 0), test_pki().ca_cert()) == 0);
  CHECK(identity(*host) == testing::kHostDn);
}

TEST_CASE("load_credential refuses bad key files", "[security][credential]") {
  const TempDir dir;
  const auto files = test_pki().write_files(dir.path());
  SECTION("readable by others") {
    std::filesystem::permissions(files.host_key, perms::owner_read | perms::group_read);
    CHECK(load_credential(files.host_cert, files.host_key).error() == Errc::FileTooPermissive);
  }
  SECTION("the key of another certificate") {
    CHECK(load_credential(files.host_cert, files.user_key).error() == Errc::KeyCertificateMismatch);
  }
  SECTION("missing") {
    CHECK(load_credential(files.host_cert, dir.path() / "nope").error() == Condition::NotFound);
  }
  SECTION("no key in it") {
    write_file(files.host_key, pem_of(test_pki().ca_cert()));
    CHECK(load_credential(files.host_cert, files.host_key).error() == Errc::MalformedPem);
  }
  SECTION("no certificate in the certificate file") {
    write_file(files.host_cert, "nothing\n");
    CHECK(load_credential(files.host_cert, files.host_key).error() == Errc::MalformedPem);
  }
}

TEST_CASE("load_proxy_file reads grid-proxy-init's layout", "[security][credential]") {
  const TempDir dir;
  const auto files = test_pki().write_files(dir.path());
  const auto proxy = load_proxy_file(files.user_proxy);
  REQUIRE(proxy.has_value());
  CHECK(X509_cmp(proxy->cert.get(), test_pki().user_proxy().cert.get()) == 0);
  CHECK(sk_X509_num(proxy->chain.get()) == 2);
  CHECK(identity(*proxy) == kUserDn);
}

TEST_CASE("load_proxy_file finds the key anywhere but wants the proxy first",
          "[security][credential]") {
  const TempDir dir;
  const auto path = dir.path() / "proxy";
  const auto proxy = test_pki().user_proxy();
  X509* user = sk_X509_value(proxy.chain.get(), 0);
  write_file(path, pem_of(proxy.key.get()) + pem_of(proxy.cert.get()) + pem_of(user));
  CHECK(load_proxy_file(path).has_value());
  write_file(path, pem_of(proxy.cert.get()) + pem_of(user) + pem_of(proxy.key.get()));
  CHECK(load_proxy_file(path).has_value());
  write_file(path, pem_of(user) + pem_of(proxy.cert.get()) + pem_of(proxy.key.get()));
  CHECK(load_proxy_file(path).error() == Errc::KeyCertificateMismatch);
  write_file(path, pem_of(proxy.cert.get()) + pem_of(proxy.key.get()),
             perms::owner_read | perms::others_read);
  CHECK(load_proxy_file(path).error() == Errc::FileTooPermissive);
}

TEST_CASE("user_credential_sources follows Globus's search order", "[security][credential]") {
  SECTION("X509_USER_PROXY wins and is final") {
    const auto sources = user_credential_sources(
        fake_environment({{"X509_USER_PROXY", "/p"}, {"X509_USER_CERT", "/c"}, {"HOME", "/h"}}),
        1000);
    REQUIRE(sources.size() == 1);
    CHECK(sources[0].cert_file == "/p");
    CHECK(sources[0].proxy_file);
    CHECK(sources[0].named_explicitly);
  }
  SECTION("then /tmp/x509up_u<uid>, then X509_USER_CERT / X509_USER_KEY") {
    const auto sources =
        user_credential_sources(fake_environment({{"X509_USER_CERT", "/c"}, {"HOME", "/h"}}), 1000);
    REQUIRE(sources.size() == 2);
    CHECK(sources[0].cert_file == "/tmp/x509up_u1000");
    CHECK_FALSE(sources[0].named_explicitly);
    CHECK(sources[1].cert_file == "/c");
    CHECK(sources[1].key_file == "/h/.globus/userkey.pem");
    CHECK(sources[1].named_explicitly);
  }
  SECTION("then ~/.globus") {
    const auto sources =
        user_credential_sources(fake_environment({{"HOME", "/h"}, {"X509_USER_PROXY", ""}}), 7);
    REQUIRE(sources.size() == 2);
    CHECK(sources[0].cert_file == "/tmp/x509up_u7");
    CHECK(sources[1].cert_file == "/h/.globus/usercert.pem");
    CHECK(sources[1].key_file == "/h/.globus/userkey.pem");
    CHECK_FALSE(sources[1].proxy_file);
  }
  SECTION("no HOME, no ~/.globus") {
    CHECK(user_credential_sources(fake_environment({}), 7).size() == 1);
  }
}

TEST_CASE("load_user_credential takes the first source that exists", "[security][credential]") {
  const TempDir dir;
  const auto files = test_pki().write_files(dir.path());
  const CredentialSource missing_proxy{dir.path() / "absent", dir.path() / "absent", true, false};
  const CredentialSource user_files{files.user_cert, files.user_key, false, false};
  const CredentialSource proxy{files.user_proxy, files.user_proxy, true, false};

  const std::vector<CredentialSource> skip_missing{missing_proxy, user_files};
  const auto user = load_user_credential(skip_missing);
  REQUIRE(user.has_value());
  CHECK(X509_cmp(user->cert.get(), test_pki().user().cert.get()) == 0);

  const std::vector<CredentialSource> proxy_first{proxy, user_files};
  const auto loaded = load_user_credential(proxy_first);
  REQUIRE(loaded.has_value());
  CHECK(X509_cmp(loaded->cert.get(), test_pki().user_proxy().cert.get()) == 0);

  CredentialSource explicit_missing = missing_proxy;
  explicit_missing.named_explicitly = true;
  const std::vector<CredentialSource> explicit_first{explicit_missing, user_files};
  CHECK(load_user_credential(explicit_first).error() == Condition::NotFound);

  const std::vector<CredentialSource> nothing{missing_proxy};
  CHECK(load_user_credential(nothing).error() == Errc::NoCredentialFound);
}

TEST_CASE("use_in_ssl_ctx presents the certificate, key and whole chain",
          "[security][credential]") {
  const SslCtxPtr context(SSL_CTX_new(TLS_method()));
  REQUIRE(context);
  const auto proxy = test_pki().user_proxy();
  REQUIRE(use_in_ssl_ctx(proxy, context.get()).has_value());
  CHECK(X509_cmp(SSL_CTX_get0_certificate(context.get()), proxy.cert.get()) == 0);
  STACK_OF(X509)* chain = nullptr;
  REQUIRE(SSL_CTX_get0_chain_certs(context.get(), &chain) == 1);
  CHECK(sk_X509_num(chain) == 2);
  CHECK(SSL_CTX_check_private_key(context.get()) == 1);

  const SslPtr ssl(SSL_new(context.get()));
  const auto host = test_pki().host();
  REQUIRE(use_in_ssl(host, ssl.get()).has_value());
  CHECK(X509_cmp(SSL_get_certificate(ssl.get()), host.cert.get()) == 0);
  REQUIRE(SSL_get0_chain_certs(ssl.get(), &chain) == 1);
  CHECK(sk_X509_num(chain) == 1);
}

TEST_CASE("use_in_ssl_ctx refuses empty or mismatched credentials", "[security][credential]") {
  const SslCtxPtr context(SSL_CTX_new(TLS_method()));
  CHECK(use_in_ssl_ctx(Credential{}, context.get()).error() == Errc::NoCredentialFound);
  auto mixed = test_pki().user();
  mixed.key = std::move(test_pki().host().key);
  CHECK(use_in_ssl_ctx(mixed, context.get()).error() == Errc::KeyCertificateMismatch);
  const SslPtr ssl(SSL_new(context.get()));
  CHECK(use_in_ssl(mixed, ssl.get()).error() == Errc::KeyCertificateMismatch);
}

TEST_CASE("share_credential gives another owner of the same objects", "[security][credential]") {
  const auto proxy = test_pki().user_proxy();
  auto shared = share_credential(proxy);
  REQUIRE(shared.has_value());
  CHECK(shared->cert.get() == proxy.cert.get());
  CHECK(shared->key.get() == proxy.key.get());
  CHECK(shared->chain.get() != proxy.chain.get());
  CHECK(sk_X509_value(shared->chain.get(), 0) == sk_X509_value(proxy.chain.get(), 0));
  const auto empty = share_credential(Credential{});
  REQUIRE(empty.has_value());
  CHECK(sk_X509_num(empty->chain.get()) == 0);
}

}  // namespace
}  // namespace gridftp::security
