// The TestPki fixture (test_pki.hpp) and the checks that it builds what it promises. It lives in
// a *_test.cpp file because tests/CMakeLists.txt globs only those.
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "security/trust_store.hpp"
#include "security/x509_identity.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security::testing {
namespace {

constexpr long kDaySeconds = 24 * 3600;

[[noreturn]] void fail(const char* what) {
  ERR_clear_error();
  throw std::runtime_error(std::string("TestPki: ") + what);
}

void ensure(bool ok, const char* what) {
  if (!ok) {
    fail(what);
  }
}

EvpPkeyPtr make_rsa_key() {
  EvpPkeyPtr key(EVP_RSA_gen(2048U));
  ensure(key != nullptr, "RSA key generation");
  return key;
}

// "/O=Grid/OU=Test/CN=Test User" -> X509_NAME. Test names only: no escapes, no '/' in values.
X509NamePtr name_from_slash_dn(std::string_view dn) {
  X509NamePtr name(X509_NAME_new());
  ensure(name != nullptr, "X509_NAME_new");
  std::size_t pos = 1;
  while (pos < dn.size()) {
    const std::size_t end = std::min(dn.find('/', pos), dn.size());
    const std::string field(dn.substr(pos, end - pos));
    const std::size_t equals = field.find('=');
    ensure(equals != std::string::npos, "malformed test DN");
    ensure(X509_NAME_add_entry_by_txt(
               name.get(), field.substr(0, equals).c_str(), MBSTRING_ASC,
               reinterpret_cast<const unsigned char*>(field.c_str()) + equals + 1, -1, -1, 0) == 1,
           "X509_NAME_add_entry_by_txt");
    pos = end + 1;
  }
  return name;
}

X509NamePtr name_plus_common_name(const X509_NAME* base, const std::string& common_name) {
  X509NamePtr name(X509_NAME_dup(base));
  ensure(name != nullptr &&
             X509_NAME_add_entry_by_NID(name.get(), NID_commonName, MBSTRING_ASC,
                                        reinterpret_cast<const unsigned char*>(common_name.c_str()),
                                        -1, -1, 0) == 1,
         "proxy name");
  return name;
}

// A certificate with the given names, key, validity and serial, not yet signed.
X509Ptr new_certificate(const X509_NAME* subject, const X509_NAME* issuer, EVP_PKEY* key,
                        long serial, long not_before_seconds, long not_after_seconds) {
  X509Ptr cert(X509_new());
  ensure(cert != nullptr && X509_set_version(cert.get(), X509_VERSION_3) == 1 &&
             ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial) == 1 &&
             X509_set_subject_name(cert.get(), subject) == 1 &&
             X509_set_issuer_name(cert.get(), issuer) == 1 &&
             X509_gmtime_adj(X509_getm_notBefore(cert.get()), not_before_seconds) != nullptr &&
             X509_gmtime_adj(X509_getm_notAfter(cert.get()), not_after_seconds) != nullptr &&
             X509_set_pubkey(cert.get(), key) == 1,
         "certificate fields");
  return cert;
}

// Adds extensions in openssl.cnf syntax ("basicConstraints" = "critical,CA:TRUE").
void add_extensions(X509* cert, X509* issuer,
                    const std::vector<std::pair<int, const char*>>& extensions) {
  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer != nullptr ? issuer : cert, cert, nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    const X509ExtensionPtr extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value));
    ensure(extension != nullptr && X509_add_ext(cert, extension.get(), -1) == 1, value);
  }
}

void add_raw_extension(X509* cert, const char* oid, bool critical,
                       const std::vector<unsigned char>& der) {
  const Asn1ObjectPtr object(OBJ_txt2obj(oid, 1));
  const Asn1OctetStringPtr value(ASN1_OCTET_STRING_new());
  ensure(object && value &&
             ASN1_OCTET_STRING_set(value.get(), der.data(), static_cast<int>(der.size())) == 1,
         "raw extension value");
  const X509ExtensionPtr extension(
      X509_EXTENSION_create_by_OBJ(nullptr, object.get(), critical ? 1 : 0, value.get()));
  ensure(extension && X509_add_ext(cert, extension.get(), -1) == 1, "raw extension");
}

// RFC 3820 proxyCertInfo built from OpenSSL's own ASN.1 type, independent of the byte constants
// in security/delegation.hpp, so each checks the other.
void add_proxy_cert_info(X509* cert, const std::string& policy_oid, long path_length) {
  const ProxyCertInfoPtr info(PROXY_CERT_INFO_EXTENSION_new());
  ensure(info != nullptr, "PROXY_CERT_INFO_EXTENSION_new");
  ASN1_OBJECT_free(info->proxyPolicy->policyLanguage);
  info->proxyPolicy->policyLanguage = OBJ_txt2obj(policy_oid.c_str(), 1);
  if (path_length >= 0) {
    info->pcPathLengthConstraint = ASN1_INTEGER_new();
    ensure(info->pcPathLengthConstraint != nullptr &&
               ASN1_INTEGER_set(info->pcPathLengthConstraint, path_length) == 1,
           "path length");
  }
  ensure(info->proxyPolicy->policyLanguage != nullptr &&
             X509_add1_ext_i2d(cert, NID_proxyCertInfo, info.get(), 1, X509V3_ADD_DEFAULT) == 1,
         "proxyCertInfo");
}

void sign(X509* cert, EVP_PKEY* key) {
  ensure(X509_sign(cert, key, EVP_sha256()) > 0, "X509_sign");
}

X509StackPtr stack_of(std::initializer_list<X509*> certificates) {
  X509StackPtr stack(sk_X509_new_null());
  ensure(stack != nullptr, "sk_X509_new_null");
  for (X509* certificate : certificates) {
    ensure(X509_add_cert(stack.get(), certificate, X509_ADD_FLAG_UP_REF) == 1, "X509_add_cert");
  }
  return stack;
}

Credential share(const Credential& credential) {
  auto shared = share_credential(credential);
  ensure(shared.has_value(), "share_credential");
  return std::move(*shared);
}

Credential make_ca(std::string_view dn) {
  Credential ca{make_rsa_key(), nullptr, stack_of({})};
  const X509NamePtr name = name_from_slash_dn(dn);
  ca.cert = new_certificate(name.get(), name.get(), ca.key.get(), 1, -3600, 3650 * kDaySeconds);
  add_extensions(ca.cert.get(), nullptr,
                 {{NID_basic_constraints, "critical,CA:TRUE"},
                  {NID_key_usage, "critical,keyCertSign,cRLSign"},
                  {NID_subject_key_identifier, "hash"}});
  sign(ca.cert.get(), ca.key.get());
  return ca;
}

Credential make_end_entity(const Credential& ca, std::string_view dn, long serial, bool host) {
  Credential entity{make_rsa_key(), nullptr, stack_of({ca.cert.get()})};
  const X509NamePtr name = name_from_slash_dn(dn);
  entity.cert = new_certificate(name.get(), X509_get_subject_name(ca.cert.get()), entity.key.get(),
                                serial, -3600, 365 * kDaySeconds);
  std::vector<std::pair<int, const char*>> extensions{
      {NID_basic_constraints, "CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
      {NID_subject_key_identifier, "hash"},
      {NID_authority_key_identifier, "keyid:always"}};
  if (host) {
    extensions.emplace_back(NID_ext_key_usage, "serverAuth,clientAuth");
    extensions.emplace_back(NID_subject_alt_name, "DNS:localhost");
  }
  add_extensions(entity.cert.get(), ca.cert.get(), extensions);
  sign(entity.cert.get(), ca.key.get());
  return entity;
}

X509CrlPtr make_crl(const Credential& ca, long revoked_serial) {
  X509CrlPtr crl(X509_CRL_new());
  X509RevokedPtr revoked(X509_REVOKED_new());
  const Asn1IntegerPtr serial(ASN1_INTEGER_new());
  const Asn1TimePtr when(X509_gmtime_adj(nullptr, -1800));
  ensure(crl && revoked && serial && when && ASN1_INTEGER_set(serial.get(), revoked_serial) == 1 &&
             X509_REVOKED_set_serialNumber(revoked.get(), serial.get()) == 1 &&
             X509_REVOKED_set_revocationDate(revoked.get(), when.get()) == 1 &&
             X509_CRL_set_version(crl.get(), X509_CRL_VERSION_2) == 1 &&
             X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(ca.cert.get())) == 1,
         "CRL fields");
  ensure(X509_CRL_add0_revoked(crl.get(), revoked.get()) == 1, "X509_CRL_add0_revoked");
  static_cast<void>(revoked.release());  // the CRL owns it now
  const Asn1TimePtr last_update(X509_gmtime_adj(nullptr, -3600));
  const Asn1TimePtr next_update(X509_gmtime_adj(nullptr, 30 * kDaySeconds));
  ensure(
      last_update && next_update && X509_CRL_set1_lastUpdate(crl.get(), last_update.get()) == 1 &&
          X509_CRL_set1_nextUpdate(crl.get(), next_update.get()) == 1 &&
          X509_CRL_sort(crl.get()) == 1 && X509_CRL_sign(crl.get(), ca.key.get(), EVP_sha256()) > 0,
      "CRL signature");
  return crl;
}

void write_pem_files(const std::filesystem::path& path, std::initializer_list<X509*> certificates,
                     std::filesystem::perms mode) {
  std::string text;
  for (X509* certificate : certificates) {
    text += pem_of(certificate);
  }
  write_file(path, text, mode);
}

std::string hash_name(X509* ca_cert, const char* suffix) {
  char name[32];
  std::snprintf(name, sizeof name, "%08lx.%s",
                X509_NAME_hash_ex(X509_get_subject_name(ca_cert), nullptr, nullptr, nullptr),
                suffix);
  return name;
}

template <typename T, int (*Write)(BIO*, const T*)>
std::string pem_with(T* object) {
  const BioPtr bio(BIO_new(BIO_s_mem()));
  ensure(bio && object != nullptr && Write(bio.get(), object) == 1, "PEM_write");
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(length)};
}

}  // namespace

std::string pem_of(X509* certificate) { return pem_with<X509, &PEM_write_bio_X509>(certificate); }

std::string pem_of(X509_CRL* crl) { return pem_with<X509_CRL, &PEM_write_bio_X509_CRL>(crl); }

std::string pem_of(EVP_PKEY* key, bool traditional) {
  const BioPtr bio(BIO_new(BIO_s_mem()));
  const int written =
      traditional ? PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0,
                                                         nullptr, nullptr)
                  : PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  ensure(bio && written == 1, "PEM_write_bio_PrivateKey");
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(length)};
}

void write_file(const std::filesystem::path& path, std::string_view text,
                std::filesystem::perms mode) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    ensure(static_cast<bool>(out), "write_file");
  }
  std::filesystem::permissions(path, mode, std::filesystem::perm_options::replace);
}

TestPki::TestPki()
    : spare_key_(make_rsa_key()),
      ca_(make_ca(kCaDn)),
      host_(make_end_entity(ca_, kHostDn, 2, true)),
      user_(make_end_entity(ca_, kUserDn, 3, false)),
      untrusted_ca_(make_ca(kUntrustedCaDn)),
      untrusted_user_(make_end_entity(untrusted_ca_, kUserDn, 3, false)),
      revoked_user_(make_end_entity(ca_, kRevokedUserDn, 99, false)),
      crl_(make_crl(ca_, 99)),
      store_(X509_STORE_new()) {
  user_proxy_ = make_proxy(user_, {.serial = kUserProxySerial});
  limited_user_proxy_ = make_proxy(user_, {.serial = 7, .policy_oid = "1.3.6.1.4.1.3536.1.1.1.9"});
  expired_user_proxy_ = make_proxy(
      user_,
      {.serial = 8, .not_before_seconds = -2 * kDaySeconds, .not_after_seconds = -kDaySeconds});
  legacy_user_proxy_ = make_proxy(user_, {.kind = ProxySpec::Kind::Legacy, .serial = 9});
  draft_user_proxy_ = make_proxy(user_, {.kind = ProxySpec::Kind::Draft, .serial = 10});
  ensure(store_ && X509_STORE_add_cert(store_.get(), ca_.cert.get()) == 1 &&
             X509_STORE_set_flags(store_.get(), X509_V_FLAG_ALLOW_PROXY_CERTS) == 1,
         "trust store");
  X509_STORE_set_verify_cb(store_.get(), &verify_callback_allowing_proxies);
}

Credential TestPki::make_proxy(const Credential& issuer, const ProxySpec& spec) const {
  Credential proxy;
  ensure(EVP_PKEY_up_ref(spare_key_.get()) == 1, "EVP_PKEY_up_ref");
  proxy.key.reset(spare_key_.get());
  std::string common_name = spec.kind != ProxySpec::Kind::Legacy ? std::to_string(spec.serial)
                            : spec.limited_legacy                ? "limited proxy"
                                                                 : "proxy";
  const X509NamePtr subject = spec.subject
                                  ? name_from_slash_dn(*spec.subject)
                                  : name_plus_common_name(X509_get_subject_name(issuer.cert.get()),
                                                          spec.common_name.value_or(common_name));
  proxy.cert = new_certificate(subject.get(), X509_get_subject_name(issuer.cert.get()),
                               proxy.key.get(), static_cast<long>(spec.serial),
                               spec.not_before_seconds, spec.not_after_seconds);
  if (spec.kind == ProxySpec::Kind::Rfc3820) {
    add_proxy_cert_info(proxy.cert.get(), spec.policy_oid, spec.path_length);
  } else if (spec.kind == ProxySpec::Kind::Draft) {
    // GT3 ProxyCertInfo with the policy only: SEQUENCE { SEQUENCE { OID } }.
    const Asn1ObjectPtr policy(OBJ_txt2obj(spec.policy_oid.c_str(), 1));
    ensure(policy != nullptr, "policy OID");
    const int oid_length = i2d_ASN1_OBJECT(policy.get(), nullptr);
    std::vector<unsigned char> der{0x30, static_cast<unsigned char>(oid_length + 2), 0x30,
                                   static_cast<unsigned char>(oid_length)};
    der.resize(4 + static_cast<std::size_t>(oid_length));
    unsigned char* cursor = der.data() + 4;
    i2d_ASN1_OBJECT(policy.get(), &cursor);
    add_raw_extension(proxy.cert.get(), "1.3.6.1.4.1.3536.1.222", true, der);
  }
  sign(proxy.cert.get(), issuer.key.get());
  proxy.chain = stack_of({issuer.cert.get()});
  for (int index = 0; issuer.chain && index < sk_X509_num(issuer.chain.get()); ++index) {
    ensure(X509_add_cert(proxy.chain.get(), sk_X509_value(issuer.chain.get(), index),
                         X509_ADD_FLAG_UP_REF) == 1,
           "X509_add_cert");
  }
  return proxy;
}

Credential TestPki::ca() const { return share(ca_); }
Credential TestPki::host() const { return share(host_); }
Credential TestPki::user() const { return share(user_); }
Credential TestPki::user_proxy() const { return share(user_proxy_); }
Credential TestPki::limited_user_proxy() const { return share(limited_user_proxy_); }
Credential TestPki::expired_user_proxy() const { return share(expired_user_proxy_); }
Credential TestPki::legacy_user_proxy() const { return share(legacy_user_proxy_); }
Credential TestPki::draft_user_proxy() const { return share(draft_user_proxy_); }
Credential TestPki::untrusted_user() const { return share(untrusted_user_); }
Credential TestPki::revoked_user() const { return share(revoked_user_); }

TestPkiFiles TestPki::write_files(const std::filesystem::path& dir, bool with_crl) const {
  using std::filesystem::perms;
  const perms public_mode =
      perms::owner_read | perms::owner_write | perms::group_read | perms::others_read;
  TestPkiFiles files{dir / "certificates", dir / "hostcert.pem", dir / "hostkey.pem",
                     dir / "usercert.pem", dir / "userkey.pem",  dir / "x509up"};
  std::filesystem::create_directories(files.cert_dir);
  write_pem_files(files.cert_dir / hash_name(ca_cert(), "0"), {ca_cert()}, public_mode);
  write_file(files.cert_dir / hash_name(ca_cert(), "signing_policy"),
             "access_id_CA X509 '/O=Grid/OU=Test/CN=Test CA'\n", public_mode);
  if (with_crl) {
    write_file(files.cert_dir / hash_name(ca_cert(), "r0"), pem_of(crl_.get()), public_mode);
  }
  write_pem_files(files.host_cert, {host_.cert.get(), ca_cert()}, public_mode);
  write_file(files.host_key, pem_of(host_.key.get()));
  write_pem_files(files.user_cert, {user_.cert.get(), ca_cert()}, public_mode);
  write_file(files.user_key, pem_of(user_.key.get()));
  write_file(files.user_proxy, pem_of(user_proxy_.cert.get()) +
                                   pem_of(user_proxy_.key.get(), true) + pem_of(user_.cert.get()) +
                                   pem_of(ca_cert()));
  return files;
}

const TestPki& test_pki() {
  static const TestPki pki;  // test-only cache: key generation dominates the suite otherwise
  return pki;
}

namespace {

TEST_CASE("TestPki credentials verify against its trust store", "[security][test_pki]") {
  const TestPki& pki = test_pki();
  for (const Credential& credential :
       {pki.host(), pki.user(), pki.user_proxy(), pki.limited_user_proxy(), pki.revoked_user()}) {
    std::string message;
    CHECK(verify_chain(pki.trust_store(), credential.cert.get(), credential.chain.get(), message)
              .has_value());
    CHECK(message.empty());
  }
}

TEST_CASE("TestPki names and keys are what the header promises", "[security][test_pki]") {
  const TestPki& pki = test_pki();
  CHECK(slash_dn(X509_get_subject_name(pki.ca_cert())) == kCaDn);
  CHECK(slash_dn(X509_get_subject_name(pki.host().cert.get())) == kHostDn);
  CHECK(slash_dn(X509_get_subject_name(pki.user_proxy().cert.get())) ==
        std::string(kUserDn) + "/CN=" + std::to_string(kUserProxySerial));
  CHECK(slash_dn(X509_get_subject_name(pki.legacy_user_proxy().cert.get())) ==
        std::string(kUserDn) + "/CN=proxy");
  CHECK(EVP_PKEY_get_bits(pki.user().key.get()) == 2048);
  CHECK(X509_check_private_key(pki.user_proxy().cert.get(), pki.user_proxy().key.get()) == 1);
  CHECK(sk_X509_num(pki.user_proxy().chain.get()) == 2);
}

}  // namespace
}  // namespace gridftp::security::testing
