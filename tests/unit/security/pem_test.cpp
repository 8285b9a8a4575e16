#include "security/pem.hpp"

#include <catch2/catch.hpp>
#include <openssl/pem.h>

#include "security/security_errors.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

using testing::pem_of;
using testing::test_pki;

TEST_CASE("parse_pem keeps certificates in file order and finds the key anywhere",
          "[security][pem]") {
  const auto proxy = test_pki().user_proxy();
  X509* user = sk_X509_value(proxy.chain.get(), 0);
  const std::string text = "leading junk\n" + pem_of(proxy.cert.get()) + pem_of(user) +
                           pem_of(proxy.key.get(), GENERATE(false, true)) +
                           pem_of(test_pki().ca_cert()) + "trailing junk\n";
  const auto contents = parse_pem(text);
  REQUIRE(contents.has_value());
  REQUIRE(sk_X509_num(contents->certificates.get()) == 3);
  CHECK(X509_cmp(sk_X509_value(contents->certificates.get(), 0), proxy.cert.get()) == 0);
  CHECK(X509_cmp(sk_X509_value(contents->certificates.get(), 1), user) == 0);
  CHECK(X509_cmp(sk_X509_value(contents->certificates.get(), 2), test_pki().ca_cert()) == 0);
  REQUIRE(contents->key);
  CHECK(EVP_PKEY_eq(contents->key.get(), proxy.key.get()) == 1);
  CHECK(contents->crls.empty());
}

TEST_CASE("parse_pem reads CRLs and ignores unknown blocks", "[security][pem]") {
  const std::string text =
      "-----BEGIN X509 SIGNING POLICY-----\nAAAA\n"
      "-----END X509 SIGNING POLICY-----\n" +
      pem_of(test_pki().crl());
  const auto contents = parse_pem(text);
  REQUIRE(contents.has_value());
  CHECK(contents->crls.size() == 1);
  CHECK(sk_X509_num(contents->certificates.get()) == 0);
  CHECK_FALSE(contents->key);
}

TEST_CASE("parse_pem of text without blocks is empty, not an error", "[security][pem]") {
  for (const std::string_view text : {"", "\n", "no pem here"}) {
    const auto contents = parse_pem(text);
    REQUIRE(contents.has_value());
    CHECK(sk_X509_num(contents->certificates.get()) == 0);
  }
}

TEST_CASE("parse_pem rejects damaged blocks", "[security][pem]") {
  std::string certificate = pem_of(test_pki().ca_cert());
  SECTION("bad base64") { certificate[40] = '*'; }
  SECTION("truncated") { certificate.resize(certificate.size() - 40); }
  SECTION("DER that is not a certificate") {
    certificate = "-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n";
  }
  CHECK(parse_pem(certificate).error() == Errc::MalformedPem);
}

TEST_CASE("parse_pem refuses encrypted keys instead of prompting", "[security][pem]") {
  const BioPtr bio(BIO_new(BIO_s_mem()));
  static constexpr char kPassphrase[] = "secret";
  const bool traditional = GENERATE(false, true);
  const int written =
      traditional
          ? PEM_write_bio_PrivateKey_traditional(
                bio.get(), test_pki().spare_key(), EVP_aes_256_cbc(),
                reinterpret_cast<const unsigned char*>(kPassphrase), 6, nullptr, nullptr)
          : PEM_write_bio_PKCS8PrivateKey(bio.get(), test_pki().spare_key(), EVP_aes_256_cbc(),
                                          kPassphrase, 6, nullptr, nullptr);
  REQUIRE(written == 1);
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  CHECK(parse_pem(std::string_view(data, static_cast<std::size_t>(length))).error() ==
        Errc::EncryptedKey);
}

TEST_CASE("parse_pem rejects a second private key", "[security][pem]") {
  const std::string key = pem_of(test_pki().spare_key());
  CHECK(parse_pem(key).has_value());
  CHECK(parse_pem(key + key).error() == Errc::MalformedPem);
}

}  // namespace
}  // namespace gridftp::security
