#include "security/delegation.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <ctime>
#include <string>

#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>

#include "security/openssl_error.hpp"
#include "security/proxy_certificate.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {
namespace {

constexpr int kMinRequestKeyBits = 2048;
constexpr int kMaxRequestKeyBits = 4096;
constexpr long kClockSkewSeconds = 5L * 60;
constexpr const char* kPlaceholderSubject = "NULL SUBJECT NAME ENTRY";

template <typename T, int (*Encode)(const T*, unsigned char**)>
Result<std::vector<unsigned char>> to_der(const T* object) {
  const int length = Encode(object, nullptr);
  if (length <= 0) {
    return make_error(openssl_error());
  }
  std::vector<unsigned char> der(static_cast<std::size_t>(length));
  unsigned char* cursor = der.data();
  if (Encode(object, &cursor) != length) {
    return make_error(openssl_error());
  }
  return der;
}

// d2i that insists on exactly one object filling the whole buffer.
template <typename Ptr, auto Decode>
Ptr from_der(std::span<const unsigned char> der) {
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX)) {
    return Ptr();
  }
  const unsigned char* cursor = der.data();
  Ptr object(Decode(nullptr, &cursor, static_cast<long>(der.size())));
  ERR_clear_error();
  if (object && cursor != der.data() + der.size()) {
    object.reset();
  }
  return object;
}

int request_key_bits(const EVP_PKEY* like_peer_key) {
  if (like_peer_key == nullptr || EVP_PKEY_get_base_id(like_peer_key) != EVP_PKEY_RSA) {
    return kMinRequestKeyBits;
  }
  return std::clamp(EVP_PKEY_get_bits(like_peer_key), kMinRequestKeyBits, kMaxRequestKeyBits);
}

Result<std::uint32_t> random_serial() {
  for (;;) {
    std::uint32_t value = 0;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&value), sizeof value) != 1) {
      return make_error(openssl_error());
    }
    value &= 0x7fffffffU;  // 31 bits, so the DER INTEGER stays positive in 4 octets
    if (value != 0) {
      return value;
    }
  }
}

// The issuer certificate's signature digest when it is a SHA-2 one, else SHA-256; EdDSA keys sign
// without a separate digest.
const EVP_MD* signing_digest(X509* issuer_cert, const EVP_PKEY* issuer_key) {
  const int key_type = EVP_PKEY_get_base_id(issuer_key);
  if (key_type == EVP_PKEY_ED25519 || key_type == EVP_PKEY_ED448) {
    return nullptr;
  }
  int digest_nid = NID_undef;
  int key_nid = NID_undef;
  if (OBJ_find_sigid_algs(X509_get_signature_nid(issuer_cert), &digest_nid, &key_nid) == 1 &&
      (digest_nid == NID_sha384 || digest_nid == NID_sha512)) {
    return EVP_get_digestbynid(digest_nid);
  }
  return EVP_sha256();
}

Result<void> add_proxy_cert_info(X509* cert, bool limited) {
  const std::span<const unsigned char> der =
      limited ? std::span<const unsigned char>(kLimitedProxyCertInfoDer)
              : std::span<const unsigned char>(kInheritAllProxyCertInfoDer);
  const Asn1OctetStringPtr value(ASN1_OCTET_STRING_new());
  if (!value || ASN1_OCTET_STRING_set(value.get(), der.data(), static_cast<int>(der.size())) != 1) {
    return make_error(openssl_error());
  }
  const X509ExtensionPtr extension(
      X509_EXTENSION_create_by_NID(nullptr, NID_proxyCertInfo, 1, value.get()));
  if (!extension || X509_add_ext(cert, extension.get(), -1) != 1) {
    return make_error(openssl_error());
  }
  return {};
}

Result<void> set_proxy_names(X509* cert, X509* issuer_cert, std::uint32_t serial) {
  const X509NamePtr subject(X509_NAME_dup(X509_get_subject_name(issuer_cert)));
  const std::string common_name = std::to_string(serial);
  if (!subject ||
      X509_NAME_add_entry_by_NID(subject.get(), NID_commonName, MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                 -1, 0) != 1 ||
      X509_set_subject_name(cert, subject.get()) != 1 ||
      X509_set_issuer_name(cert, X509_get_subject_name(issuer_cert)) != 1 ||
      ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert), serial) != 1) {
    return make_error(openssl_error());
  }
  return {};
}

Result<X509Ptr> build_proxy(const Credential& issuer, EVP_PKEY* subject_key, bool limited) {
  std::time_t now = std::time(nullptr);
  if (X509_cmp_time(X509_get0_notAfter(issuer.cert.get()), nullptr) <= 0) {
    ERR_clear_error();
    return make_error(Errc::CertificateExpired);
  }
  const auto serial = random_serial();
  if (!serial) {
    return make_error(serial.error());
  }
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      X509_time_adj_ex(X509_getm_notBefore(cert.get()), 0, -kClockSkewSeconds, &now) == nullptr ||
      X509_set1_notAfter(cert.get(), X509_get0_notAfter(issuer.cert.get())) != 1 ||
      X509_set_pubkey(cert.get(), subject_key) != 1) {
    return make_error(openssl_error());
  }
  if (auto named = set_proxy_names(cert.get(), issuer.cert.get(), *serial); !named) {
    return make_error(named.error());
  }
  // A limited proxy may only sign limited proxies (Globus rule; check_proxy_chain_rules).
  if (auto added = add_proxy_cert_info(cert.get(), limited || is_limited_proxy(issuer.cert.get()));
      !added) {
    return make_error(added.error());
  }
  const EVP_MD* digest = signing_digest(issuer.cert.get(), issuer.key.get());
  if (X509_sign(cert.get(), issuer.key.get(), digest) <= 0) {
    return make_error(openssl_error());
  }
  return cert;
}

// The peer's certificate followed by its issuers, each with its own reference.
Result<X509StackPtr> delegated_chain(X509* peer_cert, STACK_OF(X509) * peer_chain) {
  X509StackPtr chain(sk_X509_new_null());
  if (!chain || X509_add_cert(chain.get(), peer_cert, X509_ADD_FLAG_UP_REF) != 1) {
    return make_error(openssl_error());
  }
  for (int index = 0; peer_chain != nullptr && index < sk_X509_num(peer_chain); ++index) {
    X509* certificate = sk_X509_value(peer_chain, index);
    if (index == 0 && X509_cmp(certificate, peer_cert) == 0) {
      continue;  // SSL_get_peer_cert_chain on a client includes the peer's own certificate
    }
    if (X509_add_cert(chain.get(), certificate, X509_ADD_FLAG_UP_REF) != 1) {
      return make_error(openssl_error());
    }
  }
  return chain;
}

}  // namespace

EvpPkeyPtr make_delegation_key(DelegationKeyType type, int rsa_bits) {
  if (type == DelegationKeyType::EcP256) return EvpPkeyPtr(EVP_EC_gen("P-256"));
  return EvpPkeyPtr(EVP_RSA_gen(static_cast<unsigned int>(rsa_bits)));
}

Result<DelegationRequest> make_delegation_request(const EVP_PKEY* like_peer_key,
                                                  EvpPkeyPtr ready_key, DelegationKeyType type) {
  DelegationRequest request;
  if (type == DelegationKeyType::EcP256) {
    if (ready_key && EVP_PKEY_get_base_id(ready_key.get()) == EVP_PKEY_EC) {
      request.key = std::move(ready_key);
    } else {
      request.key = make_delegation_key(type, kDefaultDelegationKeyBits);
    }
  } else if (const int bits = request_key_bits(like_peer_key);
             ready_key && EVP_PKEY_get_base_id(ready_key.get()) == EVP_PKEY_RSA &&
             EVP_PKEY_get_bits(ready_key.get()) == bits) {
    request.key = std::move(ready_key);
  } else {
    request.key = make_delegation_key(type, bits);
  }
  const X509ReqPtr csr(X509_REQ_new());
  const X509NamePtr subject(X509_NAME_new());
  if (!request.key || !csr || !subject ||
      X509_NAME_add_entry_by_NID(subject.get(), NID_commonName, MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(kPlaceholderSubject), -1,
                                 -1, 0) != 1 ||
      X509_REQ_set_version(csr.get(), X509_REQ_VERSION_1) != 1 ||
      X509_REQ_set_subject_name(csr.get(), subject.get()) != 1 ||
      X509_REQ_set_pubkey(csr.get(), request.key.get()) != 1 ||
      X509_REQ_sign(csr.get(), request.key.get(), EVP_sha256()) <= 0) {
    return make_error(openssl_error());
  }
  auto der = to_der<X509_REQ, &i2d_X509_REQ>(csr.get());
  if (!der) {
    return make_error(der.error());
  }
  request.der = std::move(*der);
  return request;
}

Result<Credential> complete_delegation(DelegationRequest request,
                                       std::span<const unsigned char> cert_der, X509* peer_cert,
                                       STACK_OF(X509) * peer_chain) {
  if (!request.key || peer_cert == nullptr) {
    return make_error(Errc::DelegationMismatch);
  }
  auto cert = from_der<X509Ptr, &d2i_X509>(cert_der);
  if (!cert) {
    return make_error(Errc::MalformedDelegation);
  }
  EVP_PKEY* peer_key = X509_get0_pubkey(peer_cert);
  const bool ours = EVP_PKEY_eq(X509_get0_pubkey(cert.get()), request.key.get()) == 1;
  const bool from_peer =
      X509_NAME_cmp(X509_get_issuer_name(cert.get()), X509_get_subject_name(peer_cert)) == 0 &&
      peer_key != nullptr && X509_verify(cert.get(), peer_key) == 1;
  ERR_clear_error();
  if (!ours || !from_peer || !is_proxy_certificate(cert.get())) {
    return make_error(Errc::DelegationMismatch);
  }
  auto chain = delegated_chain(peer_cert, peer_chain);
  if (!chain) {
    return make_error(chain.error());
  }
  if (auto rules = check_proxy_chain_rules(cert.get(), chain->get()); !rules) {
    return make_error(rules.error());
  }
  return Credential{std::move(request.key), std::move(cert), std::move(*chain)};
}

Result<std::vector<unsigned char>> sign_delegation_request(
    const Credential& issuer, std::span<const unsigned char> request_der, bool limited) {
  if (!issuer.key || !issuer.cert) {
    return make_error(Errc::NoCredentialFound);
  }
  const auto csr = from_der<X509ReqPtr, &d2i_X509_REQ>(request_der);
  EVP_PKEY* subject_key = csr ? X509_REQ_get0_pubkey(csr.get()) : nullptr;
  // The self-signature proves the requester holds the key we are about to certify.
  if (subject_key == nullptr || X509_REQ_verify(csr.get(), subject_key) != 1 ||
      (EVP_PKEY_get_base_id(subject_key) == EVP_PKEY_RSA &&
       EVP_PKEY_get_bits(subject_key) < kMinRequestKeyBits)) {
    ERR_clear_error();
    return make_error(Errc::MalformedDelegation);
  }
  const auto proxy = build_proxy(issuer, subject_key, limited);
  if (!proxy) {
    return make_error(proxy.error());
  }
  return to_der<X509, &i2d_X509>(proxy->get());
}

}  // namespace gridftp::security
