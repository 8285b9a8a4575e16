// Owning smart pointers for every OpenSSL object we create. This is the only file that names an
// OpenSSL *_free function; everything else holds these aliases, so no path can leak or double-free.
#pragma once

#include <memory>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/modes.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace gridftp::security {

// A stateless deleter bound to one free function, so the alias costs no extra storage.
template <auto FreeFunction>
struct OpenSslDeleter {
  template <typename T>
  void operator()(T* object) const noexcept {
    FreeFunction(object);
  }
};

template <typename T, auto FreeFunction>
using OpenSslPtr = std::unique_ptr<T, OpenSslDeleter<FreeFunction>>;

// Key derivation, digests, ciphers and MACs.
using EvpKdfPtr = OpenSslPtr<EVP_KDF, &EVP_KDF_free>;
using EvpKdfCtxPtr = OpenSslPtr<EVP_KDF_CTX, &EVP_KDF_CTX_free>;
using EvpMdPtr = OpenSslPtr<EVP_MD, &EVP_MD_free>;
using EvpMdCtxPtr = OpenSslPtr<EVP_MD_CTX, &EVP_MD_CTX_free>;
using EvpCipherPtr = OpenSslPtr<EVP_CIPHER, &EVP_CIPHER_free>;
using EvpCipherCtxPtr = OpenSslPtr<EVP_CIPHER_CTX, &EVP_CIPHER_CTX_free>;
// GCM mode over a caller's block cipher (<openssl/modes.h>), for many short messages per key.
using Gcm128ContextPtr = OpenSslPtr<GCM128_CONTEXT, &CRYPTO_gcm128_release>;
using EvpMacPtr = OpenSslPtr<EVP_MAC, &EVP_MAC_free>;
using EvpMacCtxPtr = OpenSslPtr<EVP_MAC_CTX, &EVP_MAC_CTX_free>;
using EvpPkeyPtr = OpenSslPtr<EVP_PKEY, &EVP_PKEY_free>;
using EvpPkeyCtxPtr = OpenSslPtr<EVP_PKEY_CTX, &EVP_PKEY_CTX_free>;
using BignumPtr = OpenSslPtr<BIGNUM, &BN_free>;

// TLS.
using SslPtr = OpenSslPtr<SSL, &SSL_free>;
using SslCtxPtr = OpenSslPtr<SSL_CTX, &SSL_CTX_free>;
using SslSessionPtr = OpenSslPtr<SSL_SESSION, &SSL_SESSION_free>;
// BIO_free_all, so a filter chain is released with its sink.
using BioPtr = OpenSslPtr<BIO, &BIO_free_all>;

// Certificates.
using X509Ptr = OpenSslPtr<X509, &X509_free>;
using X509NamePtr = OpenSslPtr<X509_NAME, &X509_NAME_free>;
using X509NameEntryPtr = OpenSslPtr<X509_NAME_ENTRY, &X509_NAME_ENTRY_free>;
using X509ReqPtr = OpenSslPtr<X509_REQ, &X509_REQ_free>;
using X509ExtensionPtr = OpenSslPtr<X509_EXTENSION, &X509_EXTENSION_free>;
using X509StorePtr = OpenSslPtr<X509_STORE, &X509_STORE_free>;
using X509StoreCtxPtr = OpenSslPtr<X509_STORE_CTX, &X509_STORE_CTX_free>;
using X509CrlPtr = OpenSslPtr<X509_CRL, &X509_CRL_free>;
using X509RevokedPtr = OpenSslPtr<X509_REVOKED, &X509_REVOKED_free>;
using BasicConstraintsPtr = OpenSslPtr<BASIC_CONSTRAINTS, &BASIC_CONSTRAINTS_free>;
using ProxyCertInfoPtr = OpenSslPtr<PROXY_CERT_INFO_EXTENSION, &PROXY_CERT_INFO_EXTENSION_free>;
using ProxyPolicyPtr = OpenSslPtr<PROXY_POLICY, &PROXY_POLICY_free>;
using Asn1ObjectPtr = OpenSslPtr<ASN1_OBJECT, &ASN1_OBJECT_free>;
using Asn1OctetStringPtr = OpenSslPtr<ASN1_OCTET_STRING, &ASN1_OCTET_STRING_free>;
using GeneralNamesPtr = OpenSslPtr<GENERAL_NAMES, &GENERAL_NAMES_free>;
using Asn1IntegerPtr = OpenSslPtr<ASN1_INTEGER, &ASN1_INTEGER_free>;
using Asn1TimePtr = OpenSslPtr<ASN1_TIME, &ASN1_TIME_free>;

namespace detail {
// sk_X509_pop_free and OPENSSL_free are macros, so they need a real function to bind to.
inline void free_x509_stack(STACK_OF(X509) * stack) { sk_X509_pop_free(stack, X509_free); }
inline void free_openssl_buffer(void* buffer) { OPENSSL_free(buffer); }
}  // namespace detail

// Owns the stack and every certificate in it (what PEM chain loading returns).
using X509StackPtr = OpenSslPtr<STACK_OF(X509), &detail::free_x509_stack>;
// Memory OpenSSL allocated for us (X509_NAME_oneline, i2d_* output, BN_bn2hex, ...).
using OpenSslCharPtr = std::unique_ptr<char, OpenSslDeleter<&detail::free_openssl_buffer>>;
using OpenSslBytePtr = std::unique_ptr<unsigned char, OpenSslDeleter<&detail::free_openssl_buffer>>;

}  // namespace gridftp::security
