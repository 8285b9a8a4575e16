#include "security/delegation.hpp"

#include <ctime>

#include <catch2/catch.hpp>
#include <openssl/x509v3.h>

#include "security/security_errors.hpp"
#include "security/trust_store.hpp"
#include "security/x509_identity.hpp"
#include "tests/unit/security/test_pki.hpp"

namespace gridftp::security {
namespace {

using Bytes = std::vector<unsigned char>;
using testing::kUserDn;
using testing::test_pki;

X509Ptr decode_certificate(const Bytes& der) {
  const unsigned char* cursor = der.data();
  return X509Ptr(d2i_X509(nullptr, &cursor, static_cast<long>(der.size())));
}

DelegationRequest new_request(const Credential& peer) {
  auto request = make_delegation_request(X509_get0_pubkey(peer.cert.get()));
  REQUIRE(request.has_value());
  return std::move(*request);
}

Bytes sign(const Credential& issuer, const Bytes& request_der, bool limited) {
  auto proxy = sign_delegation_request(issuer, request_der, limited);
  REQUIRE(proxy.has_value());
  return std::move(*proxy);
}

Bytes extension_bytes(X509* certificate, int index) {
  const ASN1_OCTET_STRING* data = X509_EXTENSION_get_data(X509_get_ext(certificate, index));
  const unsigned char* bytes = ASN1_STRING_get0_data(data);
  return {bytes, bytes + ASN1_STRING_length(data)};
}

TEST_CASE("delegation round trip yields a verified proxy of the user", "[security][delegation]") {
  const auto& pki = test_pki();
  const Credential peer = pki.user_proxy();  // what the acceptor saw in the handshake
  DelegationRequest request = new_request(peer);
  const Bytes proxy_der = sign(peer, request.der, GENERATE(false, true));
  const auto delegated =
      complete_delegation(std::move(request), proxy_der, peer.cert.get(), peer.chain.get());
  REQUIRE(delegated.has_value());
  CHECK(sk_X509_num(delegated->chain.get()) == 3);  // peer proxy, user, CA
  std::string message;
  CHECK(verify_chain(pki.trust_store(), delegated->cert.get(), delegated->chain.get(), message)
            .has_value());
  INFO(message);
  CHECK(identity(*delegated) == kUserDn);
  CHECK(X509_check_private_key(delegated->cert.get(), delegated->key.get()) == 1);
}

TEST_CASE("the request matches what Globus sends", "[security][delegation]") {
  const DelegationRequest request = new_request(test_pki().user_proxy());
  CHECK(der_object_length(request.der).value() == request.der.size());
  const unsigned char* cursor = request.der.data();
  const X509ReqPtr csr(d2i_X509_REQ(nullptr, &cursor, static_cast<long>(request.der.size())));
  REQUIRE(csr);
  CHECK(slash_dn(X509_REQ_get_subject_name(csr.get())) == "/CN=NULL SUBJECT NAME ENTRY");
  CHECK(X509_REQ_verify(csr.get(), X509_REQ_get0_pubkey(csr.get())) == 1);
  CHECK(X509_REQ_get_signature_nid(csr.get()) == NID_sha256WithRSAEncryption);
  CHECK(EVP_PKEY_get_bits(request.key.get()) == 2048);
  CHECK(EVP_PKEY_eq(X509_REQ_get0_pubkey(csr.get()), request.key.get()) == 1);
  const auto without_peer = make_delegation_request(nullptr);
  REQUIRE(without_peer.has_value());
  CHECK(EVP_PKEY_get_bits(without_peer->key.get()) == 2048);
}

TEST_CASE("the signed proxy has Globus's profile", "[security][delegation]") {
  const Credential issuer = test_pki().user_proxy();
  const DelegationRequest request = new_request(issuer);
  const bool limited = GENERATE(true, false);
  const std::time_t before = std::time(nullptr);
  const Bytes der = sign(issuer, request.der, limited);
  CHECK(der_object_length(der).value() == der.size());
  const X509Ptr proxy = decode_certificate(der);
  REQUIRE(proxy);

  CHECK(X509_get_version(proxy.get()) == X509_VERSION_3);
  CHECK(X509_NAME_cmp(X509_get_issuer_name(proxy.get()),
                      X509_get_subject_name(issuer.cert.get())) == 0);
  const std::uint64_t serial = [&] {
    std::uint64_t value = 0;
    REQUIRE(ASN1_INTEGER_get_uint64(&value, X509_get0_serialNumber(proxy.get())) == 1);
    return value;
  }();
  CHECK(serial > 0);
  CHECK(serial <= 0x7fffffffU);
  CHECK(slash_dn(X509_get_subject_name(proxy.get())) ==
        slash_dn(X509_get_subject_name(issuer.cert.get())) + "/CN=" + std::to_string(serial));
  CHECK(ASN1_TIME_compare(X509_get0_notAfter(proxy.get()), X509_get0_notAfter(issuer.cert.get())) ==
        0);
  int days = 0;
  int seconds = 0;
  const Asn1TimePtr issued(ASN1_TIME_set(nullptr, before));
  REQUIRE(ASN1_TIME_diff(&days, &seconds, issued.get(), X509_get0_notBefore(proxy.get())) == 1);
  CHECK(days == 0);
  CHECK(seconds <= -295);
  CHECK(seconds >= -305);

  REQUIRE(X509_get_ext_count(proxy.get()) == 1);
  X509_EXTENSION* extension = X509_get_ext(proxy.get(), 0);
  CHECK(OBJ_obj2nid(X509_EXTENSION_get_object(extension)) == NID_proxyCertInfo);
  CHECK(X509_EXTENSION_get_critical(extension) == 1);
  const Bytes expected = limited ? Bytes{0x30, 0x0f, 0x30, 0x0d, 0x06, 0x0b, 0x2b, 0x06, 0x01,
                                         0x04, 0x01, 0x9b, 0x50, 0x01, 0x01, 0x01, 0x09}
                                 : Bytes{0x30, 0x0c, 0x30, 0x0a, 0x06, 0x08, 0x2b,
                                         0x06, 0x01, 0x05, 0x05, 0x07, 0x15, 0x01};
  CHECK(extension_bytes(proxy.get(), 0) == expected);
  CHECK(is_limited_proxy(proxy.get()) == limited);
  CHECK(X509_get_signature_nid(proxy.get()) == NID_sha256WithRSAEncryption);
}

TEST_CASE("a limited issuer signs only limited proxies", "[security][delegation]") {
  const Credential issuer = test_pki().limited_user_proxy();
  const DelegationRequest request = new_request(issuer);
  const X509Ptr proxy = decode_certificate(sign(issuer, request.der, false));
  REQUIRE(proxy);
  CHECK(is_limited_proxy(proxy.get()));
}

TEST_CASE("sign_delegation_request rejects bad requests and issuers", "[security][delegation]") {
  const Credential issuer = test_pki().user_proxy();
  const DelegationRequest request = new_request(issuer);
  Bytes bad = request.der;
  SECTION("tampered signature") { bad.back() ^= 0x01; }
  SECTION("tampered subject key") { bad[bad.size() / 2] ^= 0x01; }
  SECTION("trailing byte") { bad.push_back(0x00); }
  SECTION("truncated") { bad.resize(bad.size() - 1); }
  SECTION("empty") { bad.clear(); }
  SECTION("a certificate instead") {
    const auto delegated = sign(issuer, request.der, false);
    bad = delegated;
  }
  CHECK(sign_delegation_request(issuer, bad, false).error() == Errc::MalformedDelegation);
}

TEST_CASE("sign_delegation_request needs a live issuer", "[security][delegation]") {
  const DelegationRequest request = new_request(test_pki().user_proxy());
  CHECK(sign_delegation_request(Credential{}, request.der, false).error() ==
        Errc::NoCredentialFound);
  CHECK(sign_delegation_request(test_pki().expired_user_proxy(), request.der, false).error() ==
        Errc::CertificateExpired);
}

TEST_CASE("complete_delegation rejects certificates that are not ours or not the peer's",
          "[security][delegation]") {
  const auto& pki = test_pki();
  const Credential peer = pki.user_proxy();
  DelegationRequest request = new_request(peer);
  Bytes cert_der = sign(peer, request.der, false);
  X509* peer_cert = peer.cert.get();
  Errc expected = Errc::DelegationMismatch;
  SECTION("signed over another key") { cert_der = sign(peer, new_request(peer).der, false); }
  SECTION("tampered signature") { cert_der.back() ^= 0x01; }
  SECTION("issued by someone else") {
    const Credential other = pki.limited_user_proxy();
    cert_der = sign(other, request.der, false);
  }
  SECTION("claimed peer is not the issuer") { peer_cert = pki.host().cert.get(); }
  SECTION("trailing byte") {
    cert_der.push_back(0);
    expected = Errc::MalformedDelegation;
  }
  SECTION("garbage") {
    cert_der = {0x30, 0x03, 0x02, 0x01, 0x01};
    expected = Errc::MalformedDelegation;
  }
  CHECK(complete_delegation(std::move(request), cert_der, peer_cert, peer.chain.get()).error() ==
        expected);
}

TEST_CASE("complete_delegation wants a proxy", "[security][delegation]") {
  const Credential peer = test_pki().user_proxy();
  DelegationRequest request = new_request(peer);
  // Signed by the peer over our key, but an ordinary certificate.
  const X509Ptr plain(X509_new());
  const X509NamePtr subject(X509_NAME_dup(X509_get_subject_name(peer.cert.get())));
  REQUIRE(X509_NAME_add_entry_by_txt(subject.get(), "CN", MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>("5"), -1, -1, 0) == 1);
  REQUIRE((X509_set_version(plain.get(), X509_VERSION_3) == 1 &&
           X509_set_subject_name(plain.get(), subject.get()) == 1 &&
           X509_set_issuer_name(plain.get(), X509_get_subject_name(peer.cert.get())) == 1 &&
           X509_gmtime_adj(X509_getm_notBefore(plain.get()), 0) != nullptr &&
           X509_gmtime_adj(X509_getm_notAfter(plain.get()), 3600) != nullptr &&
           X509_set_pubkey(plain.get(), request.key.get()) == 1 &&
           X509_sign(plain.get(), peer.key.get(), EVP_sha256()) > 0));
  unsigned char* der = nullptr;
  const int length = i2d_X509(plain.get(), &der);
  const OpenSslBytePtr owned(der);
  REQUIRE(length > 0);
  CHECK(complete_delegation(std::move(request), std::span(der, static_cast<std::size_t>(length)),
                            peer.cert.get(), peer.chain.get())
            .error() == Errc::DelegationMismatch);
}

TEST_CASE("complete_delegation skips the peer certificate at the front of its chain",
          "[security][delegation]") {
  const Credential peer = test_pki().user_proxy();
  DelegationRequest request = new_request(peer);
  const Bytes cert_der = sign(peer, request.der, true);
  const X509StackPtr with_peer(sk_X509_new_null());
  REQUIRE(X509_add_cert(with_peer.get(), peer.cert.get(), X509_ADD_FLAG_UP_REF) == 1);
  REQUIRE(X509_add_certs(with_peer.get(), peer.chain.get(), X509_ADD_FLAG_UP_REF) == 1);
  const auto delegated =
      complete_delegation(std::move(request), cert_der, peer.cert.get(), with_peer.get());
  REQUIRE(delegated.has_value());
  CHECK(sk_X509_num(delegated->chain.get()) == 3);
  CHECK(X509_cmp(sk_X509_value(delegated->chain.get(), 0), peer.cert.get()) == 0);
}

TEST_CASE("complete_delegation refuses an empty request or peer", "[security][delegation]") {
  const Credential peer = test_pki().user_proxy();
  DelegationRequest request = new_request(peer);
  const Bytes cert_der = sign(peer, request.der, false);
  CHECK(complete_delegation(DelegationRequest{}, cert_der, peer.cert.get(), nullptr).error() ==
        Errc::DelegationMismatch);
  CHECK(complete_delegation(std::move(request), cert_der, nullptr, nullptr).error() ==
        Errc::DelegationMismatch);
}

}  // namespace
}  // namespace gridftp::security
