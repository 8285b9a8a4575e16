// Trust anchors from a Globus CA directory (X509_CERT_DIR: <hash>.N CAs, <hash>.rN CRLs) and
// verification of a peer's chain, proxies included. docs/WIRE.md §5.4; not the TLS handshake
// itself.
#pragma once

#include <filesystem>
#include <string>

#include <openssl/x509.h>

#include "protocol/core/result.hpp"
#include "security/openssl_ptr.hpp"

namespace gridftp::security {

// X509_CERT_DIR when set and not empty, else /etc/grid-security/certificates.
std::filesystem::path default_cert_dir();

// Loads every <8 hex digits>.<N> file as CA certificates and every <8 hex>.r<N> file as CRLs;
// other files (*.signing_policy, *.namespaces, *.crl_url, ...) are ignored. The store allows RFC
// 3820 proxies (X509_V_FLAG_ALLOW_PROXY_CERTS), checks CRLs for the whole chain
// (X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL) only when at least one CRL was loaded, and
// carries verify_callback_allowing_proxies() as its verify callback.
// Errors: errno values for the directory or a file (ENOENT compares equal to NotFound),
// Errc::MalformedPem for a file that does not parse, Errc::FileTooLarge, Errc::NoTrustAnchors
// when no CA certificate was found. The second form names the file in `message`.
Result<X509StorePtr> load_trust_store(const std::filesystem::path& cert_dir);
Result<X509StorePtr> load_trust_store(const std::filesystem::path& cert_dir, std::string& message);

// Verifies `leaf` with the untrusted intermediates in `chain` (may be null) against `store`, then
// checks the proxy rules (check_proxy_chain_rules) on the chain OpenSSL built. Every error is
// cleared from the OpenSSL queue.
// Errors: Errc::CertificateUntrusted (no path to a trusted CA, self-signed), CertificateExpired,
// CertificateNotYetValid, CertificateRevoked, ProxyViolation, CertificateInvalid (anything else:
// bad signature, not a CA, expired CRL, ...). The second form writes OpenSSL's reason, the depth
// and the subject of the failing certificate into `message`.
Result<void> verify_chain(X509_STORE* store, X509* leaf, STACK_OF(X509) * chain);
Result<void> verify_chain(X509_STORE* store, X509* leaf, STACK_OF(X509) * chain,
                          std::string& message);

// An X509 verify callback (for X509_STORE_set_verify_cb or SSL_CTX_set_verify) that accepts
// what Globus accepts and stock OpenSSL 3 does not, and nothing else:
//   * legacy (CN=proxy) and draft (GT3) proxies: OpenSSL treats them as ordinary certificates,
//     so it reports their issuer, the user's end-entity certificate, as "invalid CA" or "key
//     usage lacks keyCertSign". Both are forgiven for a certificate that directly issued such a
//     proxy whose subject is that certificate's subject plus one CN;
//   * the draft proxyCertInfo extension, critical and unknown to OpenSSL, on a draft proxy;
//   * "unable to get CRL" for a CA that publishes none when other CAs do (Globus checks CRLs
//     only where they exist; CRL_CHECK_ALL would otherwise fail every such CA).
// A forgiven error is reset to X509_V_OK, so SSL_get_verify_result() stays clean. Callers must
// still run check_proxy_chain_rules() on the verified chain (verify_chain does), because
// OpenSSL checks neither names nor path lengths of legacy and draft proxies.
int verify_callback_allowing_proxies(int preverify_ok, X509_STORE_CTX* context);

}  // namespace gridftp::security
